import { defineOperation } from "../operation.js";
import { serverRef } from "./get-server.js";

export const blockServer = defineOperation({
  name: "block-server",
  kind: "command",
  summary: "Stop a server and refuse every later start (stop reason `detection_enforcement:block`).",
  permissions: ["mcp_servers:lifecycle"],
  input: serverRef,
  async run({ fleet }, input) {
    const server = fleet.require(input.mcp_server);
    await fleet.block(server);
    return { mcp_server_id: server.id, blocked: true };
  },
});
