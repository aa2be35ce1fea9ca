import { z } from "zod";
import type { GroupState } from "../../domain/group/group-state.js";
import type { ServerState } from "../../domain/server/lifecycle.js";
import { instanceCoordinates } from "../coordination/instance-coordinates.js";
import { defineOperation } from "../operation.js";
import { deadView } from "../views/server-views.js";

const INDICATORS: Record<ServerState, string> = {
  ready: "[READY]",
  cold: "[COLD]",
  initializing: "[STARTING]",
  degraded: "[DEGRADED]",
  dead: "[DEAD]",
};

export const SCOPE_NOTE =
  "This describes what the replica named in replica.instance_id knows, not the fleet. Other replicas can " +
  "report different state and uptime at the same moment. For a fleet-wide view, query the per-replica " +
  "metrics in Prometheus.";

const GROUP_INDICATORS: Record<GroupState, string> = {
  healthy: "[HEALTHY]",
  partial: "[PARTIAL]",
  inactive: "[INACTIVE]",
  degraded: "[DEGRADED]",
};

const COLD_NOTE = "Will start on first request";

export const gatewayStatus = defineOperation({
  name: "gateway-status",
  kind: "query",
  summary: "A one-glance status of this replica's servers and groups, with a formatted text rendering.",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({}),
  // Runtime servers are counted in `mcp_servers` and the server totals too (they are fleet
  // servers); `runtime_mcp_servers` and the `runtime_*` counts describe them on their own.
  async run({ fleet, instance, clock, groups, hotLoading }) {
    const uptime_seconds = Math.round((clock.monotonic() - instance.started_mono) / 100) / 10;
    const uptime = formatDuration(uptime_seconds);
    const mcp_servers = fleet.list().map((server) => {
      const entry: {
        id: string;
        indicator: string;
        state: ServerState;
        mode: string;
        dead: unknown;
        note?: string;
      } = {
        id: server.id,
        indicator: INDICATORS[server.lifecycle.state],
        state: server.lifecycle.state,
        mode: server.spec.mode,
        dead: deadView(server.lifecycle),
      };
      if (server.lifecycle.blocked) entry.note = "Blocked";
      else if (server.lifecycle.state === "cold") entry.note = COLD_NOTE;
      return entry;
    });
    const groupEntries = groups.views().map((group) => ({
      id: group.group_id,
      indicator: GROUP_INDICATORS[group.state],
      state: group.state,
      healthy_members: group.healthy_count,
      total_members: group.total_members,
      circuit_open: group.circuit_open,
      members_in_rotation_count: group.members_in_rotation_count,
    }));
    const healthy = mcp_servers.filter((s) => s.state === "ready").length;
    const runtime_mcp_servers = hotLoading?.runtimeServers() ?? [];
    const formatted = formatDashboard(instance.instance_id, uptime, healthy, mcp_servers);
    return {
      mcp_servers,
      groups: groupEntries,
      runtime_mcp_servers,
      summary: {
        healthy_mcp_servers: healthy,
        total_mcp_servers: mcp_servers.length,
        runtime_mcp_servers: runtime_mcp_servers.length,
        runtime_healthy: runtime_mcp_servers.filter((s) => s.state === "ready").length,
        uptime,
        uptime_seconds,
      },
      replica: { ...instanceCoordinates(instance), uptime_seconds, uptime },
      scope: "replica" as const,
      scope_note: SCOPE_NOTE,
      formatted,
    };
  },
});

/** `2h 5m` or `5m`: the status view shows minutes, never seconds. */
export function formatDuration(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  return hours > 0 ? `${hours}h ${minutes}m` : `${minutes}m`;
}

/** Inner width of the dashboard box, in characters. */
const BOX_WIDTH = 49;

function formatDashboard(
  instanceId: string,
  uptime: string,
  healthy: number,
  servers: { id: string; indicator: string; state: string; note?: string }[],
): string {
  const row = (text: string) => `│${` ${text}`.padEnd(BOX_WIDTH)}│`;
  const rule = "─".repeat(BOX_WIDTH);
  return [
    `Answered by replica: ${instanceId}`,
    "This replica's own view, not the fleet. Other replicas can differ.",
    `╭${rule}╮`,
    row("Airlock Status (this replica)"),
    `├${rule}┤`,
    ...servers.map((s) =>
      row(
        `${s.indicator} ${s.id.slice(0, 15).padEnd(15)} ${s.state.slice(0, 8).padEnd(8)} ${(s.note ?? "").slice(0, 20)}`,
      ),
    ),
    `├${rule}┤`,
    row(`Health: ${healthy}/${servers.length} mcp_servers healthy`),
    row(`Replica uptime: ${uptime}`),
    `╰${rule}╯`,
  ].join("\n");
}
