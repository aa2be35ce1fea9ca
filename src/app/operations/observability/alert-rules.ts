import type { GroupView } from "../../../domain/group/group-model.js";
import type { PendingView, QuarantineView, SourceView } from "../../discovery/discovery-views.js";
import type { ManagedServer } from "../../fleet/managed-server.js";
import type { ComplianceExportStatus } from "../../ports/compliance-export.js";
import { isoTime } from "./query-fields.js";

export const ALERT_LEVELS = ["critical", "warning", "info"] as const;
export type AlertLevel = (typeof ALERT_LEVELS)[number];

/**
 * One alert in force. `type` is a stable code (a console keys on `type` and `subject_id`);
 * `message` is for people and may change; `since` is ISO 8601 UTC when the state's start is known.
 * Nothing here carries an error message of a process, a path or a secret.
 */
export interface Alert {
  readonly level: AlertLevel;
  readonly type: string;
  readonly subject_type:
    | "mcp_server"
    | "group"
    | "lease"
    | "config"
    | "event_store"
    | "compliance_export"
    | "discovery_source"
    | "discovered_server";
  readonly subject_id: string | null;
  readonly message: string;
  readonly since: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

/** A server that is dead (critical), degraded or failing its health checks (warning), blocked (info). */
export function serverAlerts(servers: readonly ManagedServer[]): Alert[] {
  const alerts: Alert[] = [];
  for (const server of servers) {
    const { state, dead, blocked, consecutive_failures } = server.lifecycle;
    const subject = { subject_type: "mcp_server", subject_id: server.id } as const;
    if (blocked) {
      alerts.push({
        level: "info",
        type: "server_blocked",
        ...subject,
        message: `MCP server '${server.id}' is blocked: no start is accepted`,
        since: null,
        details: {},
      });
    } else if (state === "dead" && dead) {
      const revival =
        dead.revived_by === "start"
          ? "only a deliberate start revives it"
          : "a deliberate start revives it, and a call once its retry backoff has passed";
      alerts.push({
        level: "critical",
        type: "server_dead",
        ...subject,
        message: `MCP server '${server.id}' is dead (${dead.reason}); ${revival}`,
        since: isoTime(dead.since),
        details: {
          reason: dead.reason,
          retry_allowed_at: dead.retry_allowed_at === null ? null : isoTime(dead.retry_allowed_at),
        },
      });
    } else if (state === "degraded") {
      alerts.push({
        level: "warning",
        type: "server_degraded",
        ...subject,
        message: `MCP server '${server.id}' is degraded after ${consecutive_failures} consecutive failures`,
        since: null,
        details: { consecutive_failures },
      });
    } else if (state === "ready" && consecutive_failures > 0) {
      alerts.push({
        level: "warning",
        type: "server_health_failing",
        ...subject,
        message: `MCP server '${server.id}' is ready but failed its last ${consecutive_failures} health check(s)`,
        since: null,
        details: { consecutive_failures },
      });
    }
  }
  return alerts;
}

/**
 * A group that cannot serve or whose circuit is open (critical), below `min_healthy` or without
 * members (warning). A group whose members are all cold serves (it starts one): no alert.
 */
export function groupAlerts(groups: readonly GroupView[]): Alert[] {
  const alerts: Alert[] = [];
  for (const group of groups) {
    const subject = { subject_type: "group", subject_id: group.group_id } as const;
    const counts = {
      healthy_count: group.healthy_count,
      members_in_rotation_count: group.members_in_rotation_count,
      total_members: group.total_members,
      min_healthy: group.min_healthy,
    };
    if (group.total_members === 0) {
      alerts.push({
        level: "warning",
        type: "group_no_members",
        ...subject,
        message: `Group '${group.group_id}' has no members`,
        since: null,
        details: counts,
      });
      continue;
    }
    if (group.circuit_open) {
      alerts.push({
        level: "critical",
        type: "group_circuit_open",
        ...subject,
        message: `Group '${group.group_id}' has its circuit breaker open after consecutive failures`,
        since: null,
        details: counts,
      });
    }
    if (!group.is_available) {
      alerts.push({
        level: "critical",
        type: "group_unavailable",
        ...subject,
        message: `Group '${group.group_id}' has no member in rotation that can serve`,
        since: null,
        details: counts,
      });
    } else if (group.state === "partial") {
      alerts.push({
        level: "warning",
        type: "group_below_min_healthy",
        ...subject,
        message: `Group '${group.group_id}' has ${group.healthy_count} healthy member(s), fewer than min_healthy ${group.min_healthy}`,
        since: null,
        details: counts,
      });
    }
  }
  return alerts;
}

/** Failing discovery sources (warning); discovered servers quarantined or waiting (info). */
export function discoveryAlerts(state: {
  sources: readonly SourceView[];
  pending: readonly PendingView[];
  quarantined: Readonly<Record<string, QuarantineView>>;
}): Alert[] {
  const alerts: Alert[] = [];
  for (const source of state.sources) {
    if (!source.is_enabled || source.is_healthy) continue;
    alerts.push({
      level: "warning",
      type: "discovery_source_failing",
      subject_type: "discovery_source",
      subject_id: source.id,
      // The source's own error text is left out: it is an adapter's message (paths, addresses).
      message: `Discovery source '${source.id}' (${source.source_type}) failed its last scan`,
      since: null,
      details: { source_type: source.source_type, last_discovery: source.last_discovery },
    });
  }
  for (const [name, entry] of Object.entries(state.quarantined)) {
    const reason = entry.reason.split(":", 1)[0] ?? "";
    alerts.push({
      level: "info",
      type: "discovered_server_quarantined",
      subject_type: "discovered_server",
      subject_id: name,
      message: `Discovered server '${name}' is quarantined (${reason}) and waits for approval`,
      since: entry.quarantined_at,
      details: { source_type: entry.source_type, reason },
    });
  }
  for (const entry of state.pending) {
    alerts.push({
      level: "info",
      type: "discovered_server_pending",
      subject_type: "discovered_server",
      subject_id: entry.name,
      message: `Discovered server '${entry.name}' waits for registration`,
      since: null,
      details: { source_type: entry.source_type },
    });
  }
  return alerts;
}

/** The last configuration reload of this replica failed (warning) until one succeeds. */
export function reloadAlert(failure: { at: number } | null): Alert[] {
  if (failure === null) return [];
  return [
    {
      level: "warning",
      type: "config_reload_failed",
      subject_type: "config",
      subject_id: null,
      message:
        "The last configuration reload failed; the configuration before it stays in force " +
        "(its ConfigurationReloadFailed event gives the reason)",
      since: isoTime(failure.at),
      details: {},
    },
  ];
}

/** The event store failing to commit (critical): commands wait for it, and are refused meanwhile. */
export function eventStoreAlert(failure: { retryInMs: number } | null): Alert[] {
  if (failure === null) return [];
  return [
    {
      level: "critical",
      type: "event_store_failing",
      subject_type: "event_store",
      subject_id: null,
      message: "The event store cannot commit events; they are kept and retried",
      since: null,
      details: { retry_in_ms: failure.retryInMs },
    },
  ];
}

/** The compliance export failing to write (warning); calls are not refused for it. */
export function complianceAlert(status: ComplianceExportStatus | undefined): Alert[] {
  if (status === undefined || status.status !== "degraded") return [];
  return [
    {
      level: "warning",
      type: "compliance_export_failing",
      subject_type: "compliance_export",
      subject_id: null,
      message: `The compliance export (${status.format}) cannot write its records; they are kept and retried`,
      since: status.last_failure_at === null ? null : isoTime(status.last_failure_at),
      details: { last_error: status.last_error, records_dropped: status.records_dropped },
    },
  ];
}
