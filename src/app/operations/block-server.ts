import { defineOperation } from "../operation.js";
import { serverRef } from "./get-server.js";

export const blockServer = defineOperation({
  name: "block-server",
  kind: "command",
  summary:
    "Stop a server and refuse every later start, across restarts (stop reason `detection_enforcement:block`).",
  permissions: ["mcp_servers:lifecycle"],
  input: serverRef,
  async run({ fleet, repositories, clock }, input, ctx) {
    // One change of the server at a time: a deletion cannot slip between storing and blocking.
    return fleet.exclusive(input.mcp_server, async () => {
      const server = fleet.require(input.mcp_server);
      // Stored first: a block that was answered survives a restart (spec 1 §3: "permanently blocked").
      await repositories.blockedServers.put({
        mcp_server_id: server.id,
        blocked_by: ctx.principal.id,
        blocked_at: clock.now() / 1000,
      });
      await fleet.block(server);
      return { mcp_server_id: server.id, blocked: true };
    });
  },
});
