import type { GroupMember } from "./group-member.js";

/**
 * Load-balancing strategies as a table: name to a pure function choosing one of the candidates.
 * Candidates arrive in member declaration order, already filtered to those that may be picked.
 * Strategies that remember something between picks keep it in {@link StrategyCursor}, which the
 * pick returns with the next snapshot.
 */
export type StrategyName =
  | "round_robin"
  | "weighted_round_robin"
  | "least_connections"
  | "random"
  | "priority";
export const STRATEGY_NAMES: readonly StrategyName[] = [
  "round_robin",
  "weighted_round_robin",
  "least_connections",
  "random",
  "priority",
];
export const DEFAULT_STRATEGY: StrategyName = "round_robin";

export interface StrategyCursor {
  /** Position in the group's member list of the last round-robin pick; -1 before the first. */
  readonly last_index: number;
  /** Smooth weighted round robin: each member's current weight (absent reads 0). */
  readonly wrr_current: Readonly<Record<string, number>>;
}

export const INITIAL_CURSOR: StrategyCursor = { last_index: -1, wrr_current: {} };

export interface Candidate {
  readonly member: GroupMember;
  /** Position in the group's member list (stable across picks, unlike the position here). */
  readonly index: number;
  readonly in_flight: number;
}

export interface StrategyInput {
  /** Never empty; in member order. */
  readonly candidates: readonly Candidate[];
  readonly cursor: StrategyCursor;
  /** Uniform in [0, 1). */
  readonly random: () => number;
}

export interface StrategyChoice {
  readonly chosen: Candidate;
  readonly cursor: StrategyCursor;
}

type Strategy = (input: StrategyInput) => StrategyChoice;

/** The next candidate after the last pick in member order, wrapping: a fair turn even as the set changes. */
const roundRobin: Strategy = ({ candidates, cursor }) => {
  const chosen = candidates.find((c) => c.index > cursor.last_index) ?? first(candidates);
  return { chosen, cursor: { ...cursor, last_index: chosen.index } };
};

/**
 * Smooth weighted round robin (as nginx does it): every candidate gains its weight, the highest
 * current weight wins (ties by order) and pays back the total. Over a cycle of sum(weights) picks
 * each member gets exactly its weight, spread out rather than in bursts. Members not in the
 * candidate set keep their current weight untouched.
 */
const weightedRoundRobin: Strategy = ({ candidates, cursor }) => {
  const current: Record<string, number> = { ...cursor.wrr_current };
  let total = 0;
  let chosen = first(candidates);
  let best = Number.NEGATIVE_INFINITY;
  for (const c of candidates) {
    const value = (current[c.member.id] ?? 0) + c.member.weight;
    current[c.member.id] = value;
    total += c.member.weight;
    if (value > best) {
      best = value;
      chosen = c;
    }
  }
  current[chosen.member.id] = best - total;
  return { chosen, cursor: { ...cursor, wrr_current: current } };
};

/** Fewest calls in flight; ties go to the earlier member. */
const leastConnections: Strategy = ({ candidates, cursor }) => {
  let chosen = first(candidates);
  for (const c of candidates) if (c.in_flight < chosen.in_flight) chosen = c;
  return { chosen, cursor };
};

/** Weighted random: each candidate's chance is its share of the weights (uniform at the default weight 1). */
const weightedRandom: Strategy = ({ candidates, cursor, random }) => {
  const total = candidates.reduce((sum, c) => sum + c.member.weight, 0);
  let point = random() * total;
  for (const c of candidates) {
    point -= c.member.weight;
    if (point < 0) return { chosen: c, cursor };
  }
  // random() returned 1 or more (a faulty source): the last candidate rather than nothing.
  return { chosen: candidates[candidates.length - 1] ?? first(candidates), cursor };
};

/**
 * The lowest priority number among the candidates, so an unavailable level falls through to the
 * next one; members sharing that level take turns (round robin).
 */
const priority: Strategy = (input) => {
  const top = Math.min(...input.candidates.map((c) => c.member.priority));
  return roundRobin({ ...input, candidates: input.candidates.filter((c) => c.member.priority === top) });
};

export const STRATEGIES: Readonly<Record<StrategyName, Strategy>> = {
  round_robin: roundRobin,
  weighted_round_robin: weightedRoundRobin,
  least_connections: leastConnections,
  random: weightedRandom,
  priority,
};

export function isStrategyName(name: unknown): name is StrategyName {
  return (STRATEGY_NAMES as readonly unknown[]).includes(name);
}

/** An unknown or missing name falls back to round_robin; an unknown one also returns a warning to log. */
export function resolveStrategy(name: string | undefined): {
  strategy: StrategyName;
  warning: string | null;
} {
  if (name === undefined || isStrategyName(name))
    return { strategy: name ?? DEFAULT_STRATEGY, warning: null };
  return {
    strategy: DEFAULT_STRATEGY,
    warning: `unknown group strategy ${JSON.stringify(name)}; falling back to ${DEFAULT_STRATEGY}`,
  };
}

function first(candidates: readonly Candidate[]): Candidate {
  const head = candidates[0];
  if (head === undefined) throw new RangeError("a strategy needs at least one candidate");
  return head;
}
