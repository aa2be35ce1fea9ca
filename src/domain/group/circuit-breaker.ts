import type { DomainEventPayload } from "../events.js";
import type { CircuitState, CloseTrigger } from "./circuit-state.js";

export type { CircuitState, CloseTrigger };

/**
 * The group circuit breaker (spec 1 §3 "Group availability") as a transition table. Call failures
 * in a row, on any member, open it; a successful call ends the run. While open the group picks no
 * member. It closes only on a passing health check, a completed start or a rebalance, and only
 * once at least `min_healthy` members are in rotation and serviceable. There is no reset timer,
 * so no time enters here.
 *
 * Health checks and starts do not count towards the run: the breaker protects callers from calls
 * that fail; rotation (see `rotation.ts`) is what health checks move.
 */
export const INITIAL_CIRCUIT: CircuitState = { open: false, failure_run: 0 };

export type CircuitTrigger = "call_failed" | "call_succeeded" | CloseTrigger;

export interface CircuitContext {
  readonly group_id: string;
  readonly failure_threshold: number;
  readonly min_healthy: number;
  /** Members in rotation and serviceable, counted after this trigger's own rotation change. */
  readonly serviceable_in_rotation: number;
}

const GUARDS = {
  reaches_failure_threshold: (c, ctx) => c.failure_run >= ctx.failure_threshold,
  enough_serviceable: (_c, ctx) => ctx.serviceable_in_rotation >= ctx.min_healthy,
} satisfies Record<string, (counted: CircuitState, ctx: CircuitContext) => boolean>;

export interface CircuitRow {
  readonly open: boolean;
  readonly on: readonly CircuitTrigger[];
  readonly when: keyof typeof GUARDS;
  readonly to_open: boolean;
}

const CLOSERS: readonly CloseTrigger[] = ["health_passed", "start_completed", "rebalance"];

/** First matching row wins; no row leaves the breaker as it is (with its run counted). */
export const CIRCUIT_TRANSITIONS: readonly CircuitRow[] = [
  { open: false, on: ["call_failed"], when: "reaches_failure_threshold", to_open: true },
  { open: true, on: CLOSERS, when: "enough_serviceable", to_open: false },
];

export interface CircuitResult {
  readonly circuit: CircuitState;
  readonly events: DomainEventPayload[];
}

export function applyCircuitTrigger(
  circuit: CircuitState,
  trigger: CircuitTrigger,
  ctx: CircuitContext,
): CircuitResult {
  const counted = countRun(circuit, trigger);
  const row = CIRCUIT_TRANSITIONS.find(
    (r) => r.open === circuit.open && r.on.includes(trigger) && GUARDS[r.when](counted, ctx),
  );
  if (!row) return { circuit: counted, events: [] };
  // Only CLOSERS reach a row that closes, so the close branch always has a CloseTrigger.
  if (row.to_open) {
    return {
      circuit: { ...counted, open: true },
      events: [
        { type: "CircuitBreakerOpened", group_id: ctx.group_id, consecutive_failures: counted.failure_run },
      ],
    };
  }
  return {
    circuit: { open: false, failure_run: 0 },
    events: [
      {
        type: "CircuitBreakerClosed",
        group_id: ctx.group_id,
        trigger: trigger as CloseTrigger,
        serviceable_in_rotation: ctx.serviceable_in_rotation,
      },
    ],
  };
}

/** A failed call lengthens the run and a successful one ends it, open or not. */
function countRun(circuit: CircuitState, trigger: CircuitTrigger): CircuitState {
  if (trigger === "call_failed") return { ...circuit, failure_run: circuit.failure_run + 1 };
  if (trigger === "call_succeeded") return { ...circuit, failure_run: 0 };
  return circuit;
}
