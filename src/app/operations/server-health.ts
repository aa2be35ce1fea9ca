import { defineOperation } from "../operation.js";
import { healthView } from "../views/server-views.js";
import { serverRef } from "./get-server.js";

export const serverHealth = defineOperation({
  name: "server-health",
  kind: "query",
  summary: "Health counters of one MCP server.",
  permissions: ["mcp_servers:read"],
  input: serverRef,
  async run({ fleet, clock }, input) {
    const now = clock.now();
    return healthView(fleet.require(input.mcp_server), now, now / 1000);
  },
});
