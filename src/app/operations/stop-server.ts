import { z } from "zod";
import { defineOperation } from "../operation.js";

/** Stop reason recorded when the caller gives none (spec 1 §3). */
export const DEFAULT_STOP_REASON = "user_request";

export const stopServer = defineOperation({
  name: "stop-server",
  kind: "command",
  summary: "Stop an MCP server, recording the reason.",
  permissions: ["mcp_servers:lifecycle"],
  input: z.strictObject({
    mcp_server: z.string().min(1).describe("MCP server id"),
    // An explicit null is no reason, as an absent one.
    reason: z.string().nullish().describe(`Why it is stopped (default ${DEFAULT_STOP_REASON})`),
  }),
  async run({ fleet, groups }, input) {
    const reason = input.reason?.trim() || DEFAULT_STOP_REASON;
    if (groups.has(input.mcp_server)) {
      await groups.stopMembers(input.mcp_server, reason);
      return { group: input.mcp_server, state: groups.view(input.mcp_server).state, stopped: true };
    }
    const server = fleet.require(input.mcp_server);
    await fleet.stopServer(server, reason);
    return { stopped: server.id, reason };
  },
});
