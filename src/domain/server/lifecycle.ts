import type { DomainEventPayload } from "../events.js";
import { retryBackoffSeconds } from "./backoff.js";
import { type DeadReason, SERVER_STATES, type ServerState } from "./server-state.js";

// The states live in a leaf module (the domain events name them, and this table emits the events);
// they are exported here too, beside the table that drives them.
export { type DeadReason, SERVER_STATES, type ServerState };

/**
 * The MCP server lifecycle (spec 1 §3, decisions "Lifecycle details") as a transition table.
 * Code never assigns a state: it feeds a trigger to {@link applyTrigger}, which finds the row,
 * computes the next snapshot and the domain events the change emits. Time is passed in.
 */
export interface DeadInfo {
  reason: DeadReason;
  /** Epoch seconds. */
  since: number;
  /** Epoch seconds: end of the retry backoff; null when only a deliberate start revives it. */
  retry_allowed_at: number | null;
  /** What brings it back: `start` (deliberate start only) or `call_or_start`. */
  revived_by: "start" | "call_or_start";
}

export interface Lifecycle {
  readonly state: ServerState;
  /** Consecutive failed starts or failed health checks; a success resets it. */
  readonly consecutive_failures: number;
  readonly dead: DeadInfo | null;
  /** Permanently blocked (stop reason `detection_enforcement:block`): no start is accepted. */
  readonly blocked: boolean;
  readonly last_stop_reason: string | null;
  /** Epoch seconds before which only a deliberate start is accepted (after a failed start or a crash). */
  readonly retry_allowed_at: number | null;
}

export const INITIAL_LIFECYCLE: Lifecycle = {
  state: "cold",
  consecutive_failures: 0,
  dead: null,
  blocked: false,
  last_stop_reason: null,
  retry_allowed_at: null,
};

export type LifecycleTrigger =
  /** `deliberate`: REST start or start tool (skips the backoff); otherwise a tool call. */
  | { on: "start"; deliberate: boolean }
  | { on: "start_succeeded"; tools_count: number; duration_ms: number }
  | { on: "start_failed"; error_type: string; max_consecutive_failures: number }
  | { on: "stop"; reason: string }
  | { on: "idle" }
  | { on: "health_failed"; error: string; max_consecutive_failures: number }
  | { on: "health_passed"; duration_ms: number }
  | { on: "crashed" }
  | { on: "gave_up" }
  | { on: "capability_blocked" }
  | { on: "block" };

export type TriggerName = LifecycleTrigger["on"];

type Guard = (lc: Lifecycle, trigger: LifecycleTrigger, now: number) => boolean;

const GUARDS = {
  not_blocked: (lc) => !lc.blocked,
  deliberate: (lc, t) => !lc.blocked && t.on === "start" && t.deliberate,
  degraded_backoff_elapsed: (lc, _t, now) =>
    !lc.blocked && (lc.retry_allowed_at === null || now >= lc.retry_allowed_at),
  backoff_elapsed: (lc, _t, now) =>
    !lc.blocked &&
    lc.dead !== null &&
    lc.dead.revived_by === "call_or_start" &&
    lc.dead.retry_allowed_at !== null &&
    now >= lc.dead.retry_allowed_at,
  below_failure_limit: (lc, t) =>
    t.on === "start_failed" && lc.consecutive_failures + 1 < t.max_consecutive_failures,
  reaches_failure_limit: (lc, t) =>
    t.on === "health_failed" && lc.consecutive_failures + 1 >= t.max_consecutive_failures,
} satisfies Record<string, Guard>;

export type GuardName = keyof typeof GUARDS;

export interface TransitionRow {
  readonly from: readonly ServerState[];
  readonly on: TriggerName;
  readonly when?: GuardName;
  readonly to: ServerState;
}

const RUNNING: readonly ServerState[] = ["initializing", "ready", "degraded"];
const ANY: readonly ServerState[] = SERVER_STATES;

/** First matching row wins. A trigger with no matching row is refused (see {@link applyTrigger}). */
export const TRANSITIONS: readonly TransitionRow[] = [
  { from: ["cold"], on: "start", when: "not_blocked", to: "initializing" },
  { from: ["degraded"], on: "start", when: "deliberate", to: "initializing" },
  { from: ["degraded"], on: "start", when: "degraded_backoff_elapsed", to: "initializing" },
  { from: ["dead"], on: "start", when: "deliberate", to: "initializing" },
  { from: ["dead"], on: "start", when: "backoff_elapsed", to: "initializing" },
  { from: ["initializing"], on: "start_succeeded", to: "ready" },
  { from: ["initializing"], on: "start_failed", when: "below_failure_limit", to: "dead" },
  { from: ["initializing"], on: "start_failed", to: "degraded" },
  { from: [...RUNNING, "dead", "cold"], on: "stop", to: "cold" },
  { from: ["ready"], on: "idle", to: "cold" },
  { from: ["ready"], on: "health_failed", when: "reaches_failure_limit", to: "degraded" },
  { from: ["ready"], on: "health_failed", to: "ready" },
  { from: ["ready", "degraded"], on: "health_passed", to: "ready" },
  { from: RUNNING, on: "crashed", to: "dead" },
  { from: ["cold", "degraded", "dead"], on: "gave_up", to: "dead" },
  { from: RUNNING, on: "capability_blocked", to: "dead" },
  { from: ANY, on: "block", to: "cold" },
];

export const BLOCK_STOP_REASON = "detection_enforcement:block";

export function findTransition(lc: Lifecycle, trigger: LifecycleTrigger, now: number): TransitionRow | null {
  for (const row of TRANSITIONS) {
    if (row.on !== trigger.on || !row.from.includes(lc.state)) continue;
    if (row.when && !GUARDS[row.when](lc, trigger, now)) continue;
    return row;
  }
  return null;
}

export interface TransitionResult {
  readonly lifecycle: Lifecycle;
  readonly events: DomainEventPayload[];
}

/**
 * Applies a trigger. Returns null when no row accepts it (the caller decides what refusal means:
 * see {@link startRefusal}). `now` is epoch seconds; `jitter` in [-1, 1] spreads retry backoffs.
 */
export function applyTrigger(
  id: string,
  lc: Lifecycle,
  trigger: LifecycleTrigger,
  now: number,
  jitter = 0,
): TransitionResult | null {
  const row = findTransition(lc, trigger, now);
  if (!row) return null;
  const next = nextSnapshot(lc, trigger, row.to, now, jitter);
  const events: DomainEventPayload[] = [];
  if (next.state !== lc.state) {
    events.push({
      type: "ProviderStateChanged",
      mcp_server_id: id,
      old_state: lc.state,
      new_state: next.state,
    });
  }
  events.push(...effects(id, lc, next, trigger));
  return { lifecycle: next, events };
}

function nextSnapshot(
  lc: Lifecycle,
  trigger: LifecycleTrigger,
  to: ServerState,
  now: number,
  jitter: number,
): Lifecycle {
  switch (trigger.on) {
    case "start":
      return { ...lc, state: to };
    case "start_succeeded":
    case "health_passed":
      return { ...lc, state: to, consecutive_failures: 0, dead: null, retry_allowed_at: null };
    case "start_failed": {
      const failures = lc.consecutive_failures + 1;
      const retryAt = now + retryBackoffSeconds(failures, jitter);
      const dead: DeadInfo | null =
        to === "dead"
          ? { reason: "start_failed", since: now, retry_allowed_at: retryAt, revived_by: "call_or_start" }
          : null;
      return { ...lc, state: to, consecutive_failures: failures, dead, retry_allowed_at: retryAt };
    }
    case "health_failed":
      return { ...lc, state: to, consecutive_failures: lc.consecutive_failures + 1 };
    case "crashed": {
      const failures = lc.consecutive_failures + 1;
      const retryAt = now + retryBackoffSeconds(failures, jitter);
      return {
        ...lc,
        state: to,
        consecutive_failures: failures,
        dead: { reason: "crashed", since: now, retry_allowed_at: retryAt, revived_by: "call_or_start" },
        retry_allowed_at: retryAt,
      };
    }
    case "gave_up":
    case "capability_blocked":
      return {
        ...lc,
        state: to,
        dead: {
          reason: trigger.on === "gave_up" ? "given_up" : "capability_blocked",
          since: now,
          retry_allowed_at: null,
          revived_by: "start",
        },
      };
    case "stop":
      return { ...lc, state: to, dead: null, last_stop_reason: trigger.reason, retry_allowed_at: null };
    case "idle":
      return { ...lc, state: to, last_stop_reason: "idle" };
    case "block":
      return {
        ...lc,
        state: to,
        dead: null,
        blocked: true,
        last_stop_reason: BLOCK_STOP_REASON,
        retry_allowed_at: null,
      };
  }
}

function effects(
  id: string,
  prev: Lifecycle,
  next: Lifecycle,
  trigger: LifecycleTrigger,
): DomainEventPayload[] {
  const wasRunning = RUNNING.includes(prev.state);
  switch (trigger.on) {
    case "start_succeeded":
      return [
        {
          type: "McpServerStarted",
          mcp_server_id: id,
          tools_count: trigger.tools_count,
          startup_duration_ms: trigger.duration_ms,
        },
      ];
    case "start_failed":
      return next.state === "degraded"
        ? [degraded(id, trigger.error_type, next.consecutive_failures)]
        : [died(id, next)];
    case "health_failed":
      return next.state === "degraded" && prev.state !== "degraded"
        ? [degraded(id, "health_check_failures", next.consecutive_failures)]
        : [];
    case "crashed":
    case "gave_up":
    case "capability_blocked":
      return [died(id, next)];
    case "stop":
    case "idle":
    case "block":
      return wasRunning
        ? [{ type: "McpServerStopped", mcp_server_id: id, reason: next.last_stop_reason ?? "" }]
        : [];
    default:
      return [];
  }
}

const degraded = (id: string, reason: string, failures: number): DomainEventPayload => ({
  type: "McpServerDegraded",
  mcp_server_id: id,
  reason,
  consecutive_failures: failures,
});

const died = (id: string, next: Lifecycle): DomainEventPayload => ({
  type: "McpServerDied",
  mcp_server_id: id,
  reason: next.dead?.reason ?? "crashed",
  retry_allowed_at: next.dead?.retry_allowed_at ?? null,
});

/** Why a start is refused, for the error the caller sees; null when a start would be accepted. */
export function startRefusal(
  lc: Lifecycle,
  deliberate: boolean,
  now: number,
): { kind: "blocked" } | { kind: "backoff"; retry_allowed_at: number | null } | null {
  if (lc.blocked) return { kind: "blocked" };
  if (findTransition(lc, { on: "start", deliberate }, now)) return null;
  if (lc.state === "dead") return { kind: "backoff", retry_allowed_at: lc.dead?.retry_allowed_at ?? null };
  if (lc.state === "degraded") return { kind: "backoff", retry_allowed_at: lc.retry_allowed_at };
  return null;
}
