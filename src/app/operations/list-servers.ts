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
  // Runtime (hot-loaded) servers are fleet servers: they appear in `mcp_servers` like any other,
  // and again in `runtime_mcp_servers` with what hot loading knows of them.
  async run({ fleet, groups, hotLoading }, input) {
    const filter = input.state_filter ?? null;
    const mcp_servers: ServerSummary[] = fleet
      .list()
      .filter((s) => filter === null || s.lifecycle.state === filter)
      .map(serverSummary);
    const groupViews = groups.views().filter((group) => filter === null || group.state === filter);
    const runtime_mcp_servers = hotLoading?.runtimeServers(filter) ?? [];
    return { mcp_servers, groups: groupViews, runtime_mcp_servers };
  },
});
