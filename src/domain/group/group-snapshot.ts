import type { CanaryConfig } from "./canary.js";
import type { CircuitState } from "./circuit-state.js";
import type { GroupMember } from "./group-member.js";
import type { StrategyCursor, StrategyName } from "./strategies.js";

export type { GroupMember };

/**
 * Group availability (spec 1 §2 "Group", §3): derived by `group-state.ts`, never assigned. Defined
 * here, with the snapshot that reports it, so the domain events can name it without a cycle.
 */
export type GroupState = "inactive" | "partial" | "healthy" | "degraded";

/**
 * A group as an immutable value. Every operation of `group-model.ts` and `membership.ts` takes a
 * snapshot and returns the next one with the domain events of the change; nothing mutates it. The
 * members' lifecycle states are not part of it: they are passed in per decision.
 */
export interface GroupSnapshot {
  readonly group_id: string;
  readonly settings: GroupSettings;
  /** In declaration order: the order breaks ties of every strategy. */
  readonly members: readonly GroupMember[];
  readonly circuit: CircuitState;
  readonly cursor: StrategyCursor;
  /** The state last reported, so a change emits `GroupStateChanged` exactly once. */
  readonly last_state: GroupState;
}

export interface GroupSettings {
  readonly description: string | null;
  readonly strategy: StrategyName;
  /** >= 1: below it the group is `partial`, and the circuit closes only with this many serviceable. */
  readonly min_healthy: number;
  /** >= 1: consecutive failures that take a member out of rotation. */
  readonly unhealthy_threshold: number;
  /** >= 1: consecutive successes that bring a member back. */
  readonly healthy_threshold: number;
  /** >= 1: call failures in a row, across members, that open the circuit. */
  readonly failure_threshold: number;
  readonly canary: CanaryConfig | null;
}

/** Spec 2 §2 "groups" defaults. */
export const GROUP_DEFAULTS = {
  min_healthy: 1,
  unhealthy_threshold: 2,
  healthy_threshold: 1,
  failure_threshold: 10,
  weight: 1,
  priority: 1,
} as const;

/** A member as configuration or REST gives it. */
export interface MemberInput {
  readonly id: string;
  readonly weight?: number;
  readonly priority?: number;
}

/** A group as configuration (`mode: group`) or `POST /groups` gives it; absent keys take defaults. */
export interface GroupInput {
  readonly group_id: string;
  readonly description?: string | null;
  /** Any string: an unknown one falls back to `round_robin` with a warning. */
  readonly strategy?: string;
  readonly min_healthy?: number;
  readonly health?: { readonly unhealthy_threshold?: number; readonly healthy_threshold?: number };
  readonly circuit_breaker?: { readonly failure_threshold?: number };
  readonly canary?: {
    readonly member?: string | null;
    readonly split_pct?: number;
    readonly pinned_tenants?: Readonly<Record<string, string>>;
  } | null;
  readonly members?: readonly MemberInput[];
}

/** Throws a RangeError: inputs are validated by the config schema and REST bodies before this. */
export function requireInt(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new RangeError(`${name} must be an integer ${range}, got ${value}`);
  }
  return value;
}
