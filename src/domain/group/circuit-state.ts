/**
 * The state of a group's circuit breaker (`circuit-breaker.ts`) and what may close it. A leaf of
 * its own: the group snapshot holds the state, and the domain events name the closing trigger.
 */
export interface CircuitState {
  readonly open: boolean;
  /** Call failures in a row across members. */
  readonly failure_run: number;
}

export type CloseTrigger = "health_passed" | "start_completed" | "rebalance";
