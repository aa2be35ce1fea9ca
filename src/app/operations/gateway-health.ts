import { z } from "zod";
import type { GroupView } from "../../domain/group/group-model.js";
import type { ServerState } from "../../domain/server/lifecycle.js";
import { instanceCoordinates } from "../coordination/instance-coordinates.js";
import { defineOperation } from "../operation.js";
import { SCOPE_NOTE } from "./gateway-status.js";

export const gatewayHealth = defineOperation({
  name: "gateway-health",
  kind: "query",
  summary: "Health of this replica: servers by state, groups, rate limiting.",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({}),
  async run({ fleet, instance, clock, settings, groups, rateLimiter, complianceExport }) {
    const by_state: Partial<Record<ServerState, number>> = {};
    for (const server of fleet.list())
      by_state[server.lifecycle.state] = (by_state[server.lifecycle.state] ?? 0) + 1;
    const troubled = (by_state.dead ?? 0) + (by_state.degraded ?? 0);
    return {
      // `degraded` as soon as one server is degraded or dead: the replica serves, but not everything.
      status: troubled === 0 ? "healthy" : "degraded",
      mcp_servers: { total: fleet.list().length, by_state },
      groups: groupSummary(groups.views()),
      security: {
        rate_limiting: {
          // Buckets of the command-bus rate limit held now (each is dropped once refilled).
          active_buckets: rateLimiter?.activeBuckets ?? 0,
          config: {
            requests_per_second: settings.rateLimit.rps,
            burst_size: settings.rateLimit.burst,
            scope: settings.rateLimit.perCaller ? "caller" : "all_callers",
          },
        },
      },
      replica: {
        ...instanceCoordinates(instance),
        uptime_seconds: Math.round((clock.monotonic() - instance.started_mono) / 100) / 10,
      },
      scope: "replica" as const,
      scope_note: SCOPE_NOTE,
      // Only while the compliance export is on; a failing output degrades this field, not `status`.
      ...(complianceExport && { compliance_export: complianceExport.status() }),
    };
  },
});

function groupSummary(views: readonly GroupView[]) {
  const by_state: Record<string, number> = {};
  let total_members = 0;
  let healthy_members = 0;
  let members_in_rotation_count = 0;
  for (const group of views) {
    by_state[group.state] = (by_state[group.state] ?? 0) + 1;
    total_members += group.total_members;
    healthy_members += group.healthy_count;
    members_in_rotation_count += group.members_in_rotation_count;
  }
  return { total: views.length, by_state, total_members, healthy_members, members_in_rotation_count };
}
