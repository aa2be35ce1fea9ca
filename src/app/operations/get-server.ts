import { z } from "zod";
import { policySummary } from "../../domain/policy/tool-policy.js";
import { defineOperation } from "../operation.js";
import { callerToolFilter } from "../views/caller-tools.js";
import { serverDetail } from "../views/server-views.js";

export const serverRef = z.strictObject({
  mcp_server: z.string().min(1).describe("MCP server id"),
});

export const getServer = defineOperation({
  name: "get-server",
  kind: "query",
  summary: "Details of one MCP server: state, tools, health and its tool policy.",
  permissions: ["mcp_servers:read"],
  input: serverRef,
  async run(services, input, ctx) {
    const { fleet, clock, groups, pins, headerExposure } = services;
    if (groups.has(input.mcp_server)) return groups.view(input.mcp_server);
    const server = fleet.require(input.mcp_server);
    const detail = serverDetail(server, clock.now(), clock.monotonic(), (tool) =>
      pins?.pinnedDigest(server.id, tool),
    );
    const visibleTo = await callerToolFilter(services, ctx);
    const visible = visibleTo(server.id, null, detail.tools);
    const filtered = detail.tools.length - visible.length;
    // Tools `header_exposure` withholds are hidden too (not counted as filtered by the policy).
    const shown = visible.filter((tool) => !headerExposure?.withholds(server.id, tool));
    return {
      ...detail,
      tools: shown,
      // Counted as listed, like the summary's `tools_count`.
      meta: "tools_count" in detail.meta ? { ...detail.meta, tools_count: shown.length } : detail.meta,
      tools_policy: {
        ...policySummary(server.spec.tool_policy),
        ...(filtered > 0 && { filtered_count: filtered }),
      },
    };
  },
});
