import type { Lifecycle, ServerState } from "../../domain/server/lifecycle.js";
import type { ManagedServer, ToolInfo } from "../fleet/managed-server.js";

/** Summary object of a server (list entries), spec 1 §2. */
export interface ServerSummary {
  mcp_server_id: string;
  state: ServerState;
  mode: string;
  alive: boolean;
  tools_count: number;
  health_status: HealthStatus;
  tools_predefined: boolean;
  dead: DeadView | null;
  description?: string;
}

/** The `dead` object: times as ISO 8601 UTC strings. */
export interface DeadView {
  reason: string;
  since: string;
  retry_allowed_at: string | null;
  revived_by: string;
}

/** `healthy` ready with no failures; `degraded` failing checks; `unhealthy` dead; `unknown` not running. */
export type HealthStatus = "healthy" | "degraded" | "unhealthy" | "unknown";

export interface HealthView {
  consecutive_failures: number;
  total_invocations: number;
  total_failures: number;
  success_rate: number;
  can_retry: boolean;
  last_success_ago: number | null;
  last_failure_ago: number | null;
}

export interface ToolView {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  digest: string;
  /** Spec 1 "Tool": present only when the tool has a pin for every caller (not a per-tenant one). */
  pinned_digest?: string;
}

export interface ServerDetail {
  mcp_server_id: string;
  state: ServerState;
  mode: string;
  alive: boolean;
  tools: ToolView[];
  health: HealthView;
  /** Seconds since last use; 0 for a server that is not running. */
  idle_time: number;
  meta: Record<string, unknown>;
  dead: DeadView | null;
}

export function healthStatus(server: ManagedServer): HealthStatus {
  switch (server.lifecycle.state) {
    case "ready":
      return server.lifecycle.consecutive_failures === 0 ? "healthy" : "degraded";
    case "degraded":
      return "degraded";
    case "dead":
      return "unhealthy";
    default:
      return "unknown";
  }
}

export function serverSummary(server: ManagedServer): ServerSummary {
  const summary: ServerSummary = {
    mcp_server_id: server.id,
    state: server.lifecycle.state,
    mode: server.spec.mode,
    alive: server.alive,
    tools_count: server.tools?.length ?? 0,
    health_status: healthStatus(server),
    tools_predefined: (server.spec.predefined_tools?.length ?? 0) > 0,
    dead: deadView(server.lifecycle),
  };
  if (server.spec.description) summary.description = server.spec.description;
  return summary;
}

/** The pin for every caller of a tool of the server, if any (`DigestPins.pinnedDigest`). */
export type PinnedDigestOf = (tool: string) => string | undefined;

export function toolView(tool: ToolInfo, pinnedDigestOf?: PinnedDigestOf): ToolView {
  const view: ToolView = {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    digest: tool.digest,
  };
  if (tool.outputSchema) view.outputSchema = tool.outputSchema;
  const pinned = pinnedDigestOf?.(tool.name);
  if (pinned !== undefined) view.pinned_digest = pinned;
  return view;
}

export function healthView(server: ManagedServer, nowMs: number, nowS: number): HealthView {
  const { stats, lifecycle } = server;
  const ago = (at: number | null) => (at === null ? null : round((nowMs - at) / 1000));
  const retryAt = lifecycle.dead?.retry_allowed_at ?? null;
  return {
    consecutive_failures: lifecycle.consecutive_failures,
    total_invocations: stats.total_invocations,
    total_failures: stats.total_failures,
    success_rate:
      stats.total_invocations === 0
        ? 1
        : round((stats.total_invocations - stats.total_failures) / stats.total_invocations),
    can_retry:
      !lifecycle.blocked &&
      (lifecycle.state === "dead"
        ? retryAt !== null && nowS >= retryAt
        : lifecycle.state !== "degraded" ||
          lifecycle.retry_allowed_at === null ||
          nowS >= lifecycle.retry_allowed_at),
    last_success_ago: ago(stats.last_success_at),
    last_failure_ago: ago(stats.last_failure_at),
  };
}

export function serverDetail(
  server: ManagedServer,
  nowMs: number,
  nowMono: number,
  pinnedDigestOf?: PinnedDigestOf,
): ServerDetail {
  const detail: ServerDetail = {
    mcp_server_id: server.id,
    state: server.lifecycle.state,
    mode: server.spec.mode,
    alive: server.alive,
    tools: (server.tools ?? []).map((tool) => toolView(tool, pinnedDigestOf)),
    health: healthView(server, nowMs, nowMs / 1000),
    idle_time: server.lastUsedMono === 0 ? 0 : round((nowMono - server.lastUsedMono) / 1000),
    meta: serverMeta(server),
    dead: deadView(server.lifecycle),
  };
  return detail;
}

/**
 * `meta`: `{}` before the first start; then `init_result`, `tools_count` and `started_at`, and while
 * connected `protocol_version`, the MCP revision the server's `initialize` settled on.
 */
function serverMeta(server: ManagedServer): Record<string, unknown> {
  if (server.startedAt === null) return {};
  const meta: Record<string, unknown> = {
    init_result: {},
    tools_count: server.tools?.length ?? 0,
    started_at: server.startedAt / 1000,
  };
  const revision = server.connection?.protocolVersion;
  if (revision !== undefined) meta.protocol_version = revision;
  return meta;
}

export function deadView(lifecycle: Lifecycle): DeadView | null {
  const dead = lifecycle.dead;
  if (lifecycle.state !== "dead" || !dead) return null;
  return {
    reason: dead.reason,
    since: isoSeconds(dead.since),
    retry_allowed_at: dead.retry_allowed_at === null ? null : isoSeconds(dead.retry_allowed_at),
    revived_by: dead.revived_by,
  };
}

const isoSeconds = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
