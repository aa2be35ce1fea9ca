import { z } from "zod";
import { defineOperation } from "../operation.js";
import { callerToolListing } from "../views/caller-tools.js";
import { type ServerSummary, serverSummary } from "../views/server-views.js";

export const listServers = defineOperation({
  name: "list-servers",
  kind: "query",
  summary: "List registered MCP servers and groups, optionally filtered by state.",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({
    state_filter: z
      .string()
      .nullish()
      .describe(
        "Server state (cold, ready, degraded, dead) or group state; an unknown value gives empty lists",
      ),
  }),
  // Runtime (hot-loaded) servers are fleet servers: they appear in `mcp_servers` like any other,
  // and again in `runtime_mcp_servers` with what hot loading knows of them.
  async run(services, input, ctx) {
    const { fleet, groups, hotLoading } = services;
    const filter = input.state_filter ?? null;
    // `tools_count` counts the tools the caller is shown, as gateway_tools lists them.
    const listed = await callerToolListing(services, ctx);
    const mcp_servers: ServerSummary[] = fleet
      .list()
      .filter((s) => filter === null || s.lifecycle.state === filter)
      .map((s) => ({ ...serverSummary(s), tools_count: listed(s.id, null, s.tools ?? []).length }));
    const groupViews = groups.views().filter((group) => filter === null || group.state === filter);
    const runtime_mcp_servers = hotLoading?.runtimeServers(filter) ?? [];
    return { mcp_servers, groups: groupViews, runtime_mcp_servers };
  },
});
