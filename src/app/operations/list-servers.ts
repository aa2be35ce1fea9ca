import { z } from "zod";
import { defineOperation } from "../operation.js";
import { type ServerSummary, serverSummary } from "../views/server-views.js";

export const listServers = defineOperation({
  name: "list-servers",
  kind: "query",
  summary: "List registered MCP servers and groups, optionally filtered by state.",
  permissions: ["mcp_servers:read"],
  input: z.object({
    state_filter: z
      .string()
      .nullish()
      .describe(
        "Server state (cold, ready, degraded, dead) or group state; an unknown value gives empty lists",
      ),
  }),
  async run({ fleet, groups }, input) {
    const filter = input.state_filter ?? null;
    const mcp_servers: ServerSummary[] = fleet
      .list()
      .filter((s) => filter === null || s.lifecycle.state === filter)
      .map(serverSummary);
    const groupViews = groups.views().filter((group) => filter === null || group.state === filter);
    return { mcp_servers, groups: groupViews, runtime_mcp_servers: [] as unknown[] };
  },
});
