import { defineOperation } from "../operation.js";
import { serverRef } from "./get-server.js";

export const startServer = defineOperation({
  name: "start-server",
  kind: "command",
  summary: "Start an MCP server (a dead one at once, skipping its retry backoff) and list its tools.",
  permissions: ["mcp_servers:lifecycle"],
  input: serverRef,
  async run({ fleet }, input) {
    const server = fleet.require(input.mcp_server);
    const tools = await fleet.start(server, true);
    return { mcp_server: server.id, state: server.lifecycle.state, tools: tools.map((t) => t.name) };
  },
});
