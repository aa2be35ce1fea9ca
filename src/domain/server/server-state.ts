/**
 * The states of the MCP server lifecycle (spec 1 §3), driven by the transition table of
 * `lifecycle.ts`. A leaf of its own: the domain events name these states, and the table emits them.
 */
export type ServerState = "cold" | "initializing" | "ready" | "degraded" | "dead";
export const SERVER_STATES: readonly ServerState[] = ["cold", "initializing", "ready", "degraded", "dead"];

export type DeadReason = "given_up" | "crashed" | "start_failed" | "capability_blocked";
