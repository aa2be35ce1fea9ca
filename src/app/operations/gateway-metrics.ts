import { z } from "zod";
import { defineOperation } from "../operation.js";
import { notConfigured } from "./unavailable.js";

/**
 * `gateway_metrics` (spec 2 §4): this replica's metrics as JSON, or the Prometheus text exposition
 * with `format: prometheus` (any other value gives JSON).
 */
export const gatewayMetrics = defineOperation({
  name: "gateway-metrics",
  kind: "query",
  summary: "Metrics of this replica: servers, groups, tool calls, errors and performance.",
  permissions: ["metrics:read"],
  input: z.strictObject({ format: z.string().default("json").describe("json or prometheus") }),
  async run({ metrics, fleet, groups, discovery }, { format }) {
    if (!metrics) throw notConfigured("metrics");
    if (format.trim().toLowerCase() === "prometheus") return { metrics: await metrics.exposition() };
    const mcp_servers: Record<string, unknown> = {};
    for (const server of fleet.list()) {
      mcp_servers[server.id] = {
        state: server.lifecycle.state,
        mode: server.spec.mode,
        total_invocations: server.stats.total_invocations,
        total_failures: server.stats.total_failures,
        in_flight: server.inFlight,
      };
    }
    const groupViews = groups.views();
    const groupMetrics: Record<string, unknown> = {};
    for (const group of groupViews) {
      groupMetrics[group.group_id] = {
        state: group.state,
        healthy_count: group.healthy_count,
        members_in_rotation_count: group.members_in_rotation_count,
        total_members: group.total_members,
        circuit_open: group.circuit_open,
      };
    }
    const { tool_calls, errors, performance } = metrics.summary();
    return {
      mcp_servers,
      groups: groupMetrics,
      tool_calls,
      // This replica's view: only the fleet manager holds discovery state (a follower shows zeros).
      discovery: discovery ? { enabled: discovery.enabled, ...discovery.counts() } : { enabled: false },
      errors,
      performance,
      summary: {
        total_mcp_servers: fleet.list().length,
        total_groups: groupViews.length,
        total_tool_calls: performance.total_calls,
        total_errors: Object.values(errors).reduce((sum, count) => sum + count, 0),
      },
    };
  },
});
