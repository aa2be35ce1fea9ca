import type { DomainEventPayload } from "../events.js";
import type { ServerState } from "../server/lifecycle.js";
import { routeTenant } from "./canary.js";
import { applyCircuitTrigger, type CircuitTrigger } from "./circuit-breaker.js";
import type { GroupSnapshot } from "./group-snapshot.js";
import {
  countMembers,
  type GroupState,
  groupStateOf,
  isAvailable,
  pickableMembers,
  settle,
} from "./group-state.js";
import { type MemberStatuses, statusOf } from "./member-status.js";
import { applyMemberResult, type MemberResult } from "./rotation.js";
import { INITIAL_CURSOR, STRATEGIES, type StrategyName } from "./strategies.js";

/**
 * The group operations the application drives. Each is a pure function of a snapshot and the
 * members' current lifecycle statuses; those that change something return the next snapshot and
 * the domain events of the change, in order: rotation changes, circuit changes, group state change.
 */
export interface Transition {
  readonly snapshot: GroupSnapshot;
  readonly events: DomainEventPayload[];
}

export interface PickContext {
  /** The caller's tenant; null or absent for an anonymous call (see `canary.ts`). */
  readonly tenant?: string | null;
  /** Uniform in [0, 1); used by the `random` strategy only. */
  readonly random: () => number;
  readonly memberStates: MemberStatuses;
  /** Calls in flight per member (absent reads 0); used by `least_connections` only. */
  readonly inFlight?: ReadonlyMap<string, number>;
  /**
   * The members the call may reach (their policies allow the tool); absent: all. When none of the
   * pickable members may, all stay candidates, so the call meets its refusal where it lands.
   */
  readonly eligible?: (memberId: string) => boolean;
}

/** How the member was chosen: the strategy, the canary split, or a tenant pin. */
export type PickRoute = "strategy" | "canary" | "pinned";

export type PickResult =
  | { readonly member_id: string; readonly route: PickRoute; readonly snapshot: GroupSnapshot }
  /** `circuit_open`: answer CircuitBreakerOpen. `no_members`: nothing in rotation could serve. */
  | { readonly refused: "circuit_open" | "no_members"; readonly snapshot: GroupSnapshot };

/**
 * Chooses the member for one call. Only members in rotation and not dead (nor blocked) are
 * considered; cold ones are, since the call starts them; a group whose members are all cold and
 * startable routes even when none is in rotation. Pins and the canary split come first, and fall
 * through to the strategy when their member cannot be picked. The returned snapshot carries the
 * strategy's cursor forward: keep it for the next pick.
 */
export function pick(snapshot: GroupSnapshot, ctx: PickContext): PickResult {
  if (snapshot.circuit.open) return { refused: "circuit_open", snapshot };
  const serviceable = pickableMembers(snapshot.members, ctx.memberStates);
  if (serviceable.length === 0) return { refused: "no_members", snapshot };
  const { eligible } = ctx;
  const allowed = eligible ? serviceable.filter((m) => eligible(m.id)) : serviceable;
  const pickable = allowed.length > 0 ? allowed : serviceable;

  const route = routeTenant(snapshot.settings.canary, ctx.tenant);
  if (route.kind !== "stable" && pickable.some((m) => m.id === route.member_id)) {
    return { member_id: route.member_id, route: route.kind, snapshot };
  }
  // Stable traffic avoids the canary member, unless it is the only one left to serve.
  const canaryId = snapshot.settings.canary?.member ?? null;
  const stable = pickable.filter((m) => m.id !== canaryId);
  const pool = stable.length > 0 ? stable : pickable;
  const candidates = pool.map((member) => ({
    member,
    index: snapshot.members.indexOf(member),
    in_flight: ctx.inFlight?.get(member.id) ?? 0,
  }));
  const choice = STRATEGIES[snapshot.settings.strategy]({
    candidates,
    cursor: snapshot.cursor,
    random: ctx.random,
  });
  return {
    member_id: choice.chosen.member.id,
    route: "strategy",
    snapshot: { ...snapshot, cursor: choice.cursor },
  };
}

/** The outcome of a call routed to a member: moves its rotation counters and the circuit's failure run. */
export function recordOutcome(
  snapshot: GroupSnapshot,
  memberId: string,
  success: boolean,
  statuses: MemberStatuses,
): Transition {
  return record(
    snapshot,
    memberId,
    success ? "success" : "failure",
    success ? "call_succeeded" : "call_failed",
    statuses,
  );
}

/**
 * A call lost with its member's connection: a failed call in the circuit's run. The member's rotation
 * counters take the connection's end itself (a crash, through {@link recordHealth}; a deliberate
 * stop is no failure), so the call does not count against the member a second time.
 */
export function recordLostCall(snapshot: GroupSnapshot, statuses: MemberStatuses): Transition {
  return circuitThenSettle(snapshot, "call_failed", statuses, []);
}

/** A health check of a member: moves its rotation counters; a pass may close the circuit. */
export function recordHealth(
  snapshot: GroupSnapshot,
  memberId: string,
  passed: boolean,
  statuses: MemberStatuses,
): Transition {
  return record(
    snapshot,
    memberId,
    passed ? "success" : "failure",
    passed ? "health_passed" : null,
    statuses,
  );
}

/**
 * A start of a member outside a call (group start, `auto_start`, recovery); a start a call triggered
 * reports through that call's outcome instead. Pass statuses as they are after the start. A
 * completed start counts as a success for rotation and may close the circuit; a failed one counts
 * as a failure for rotation only.
 */
export function recordStart(
  snapshot: GroupSnapshot,
  memberId: string,
  succeeded: boolean,
  statuses: MemberStatuses,
): Transition {
  return record(
    snapshot,
    memberId,
    succeeded ? "success" : "failure",
    succeeded ? "start_completed" : null,
    statuses,
  );
}

/**
 * `POST /groups/{id}/rebalance`: feed fresh health results through {@link recordHealth} first, then
 * call this. It restarts the strategies' turns, closes the circuit when enough members are in
 * rotation and serviceable, and recomputes the state. It does not move rotation by itself.
 */
export function rebalance(snapshot: GroupSnapshot, statuses: MemberStatuses): Transition {
  return circuitThenSettle({ ...snapshot, cursor: INITIAL_CURSOR }, "rebalance", statuses, []);
}

/** A member's lifecycle changed (start, stop, crash...): recomputes the group state. */
export function sync(snapshot: GroupSnapshot, statuses: MemberStatuses): Transition {
  return settle(snapshot, statuses, []);
}

function record(
  snapshot: GroupSnapshot,
  memberId: string,
  result: MemberResult,
  trigger: CircuitTrigger | null,
  statuses: MemberStatuses,
): Transition {
  const index = snapshot.members.findIndex((m) => m.id === memberId);
  const member = snapshot.members[index];
  let next = snapshot;
  const events: DomainEventPayload[] = [];
  // A result for a member removed meanwhile (a call in flight across a reload) still counts for the circuit.
  if (member !== undefined) {
    const rotated = applyMemberResult(snapshot.group_id, member, result, snapshot.settings);
    const members = snapshot.members.with(index, rotated.member);
    next = { ...snapshot, members };
    events.push(...rotated.events);
  }
  return trigger === null
    ? settle(next, statuses, events)
    : circuitThenSettle(next, trigger, statuses, events);
}

function circuitThenSettle(
  snapshot: GroupSnapshot,
  trigger: CircuitTrigger,
  statuses: MemberStatuses,
  events: DomainEventPayload[],
): Transition {
  const { settings } = snapshot;
  const result = applyCircuitTrigger(snapshot.circuit, trigger, {
    group_id: snapshot.group_id,
    failure_threshold: settings.failure_threshold,
    min_healthy: settings.min_healthy,
    serviceable_in_rotation: countMembers(snapshot.members, statuses).serviceable_in_rotation,
  });
  return settle({ ...snapshot, circuit: result.circuit }, statuses, [...events, ...result.events]);
}

export interface GroupMemberView {
  readonly id: string;
  readonly state: ServerState;
  readonly in_rotation: boolean;
  readonly weight: number;
  readonly priority: number;
  readonly consecutive_failures: number;
}

/** The group object of spec 1 §2 "Group". */
export interface GroupView {
  readonly group_id: string;
  readonly description: string | null;
  readonly state: GroupState;
  readonly strategy: StrategyName;
  readonly min_healthy: number;
  readonly healthy_count: number;
  readonly members_in_rotation_count: number;
  readonly total_members: number;
  readonly is_available: boolean;
  readonly circuit_open: boolean;
  readonly members: GroupMemberView[];
}

/** Computed from the statuses given, so it is current even if a member changed since the last operation. */
export function view(snapshot: GroupSnapshot, statuses: MemberStatuses): GroupView {
  const counts = countMembers(snapshot.members, statuses);
  return {
    group_id: snapshot.group_id,
    description: snapshot.settings.description,
    state: groupStateOf(snapshot.circuit.open, counts, snapshot.settings.min_healthy),
    strategy: snapshot.settings.strategy,
    min_healthy: snapshot.settings.min_healthy,
    healthy_count: counts.healthy_count,
    members_in_rotation_count: counts.members_in_rotation_count,
    total_members: counts.total_members,
    is_available: isAvailable(snapshot.members, statuses),
    circuit_open: snapshot.circuit.open,
    members: snapshot.members.map((m) => ({
      id: m.id,
      state: statusOf(statuses, m.id).state,
      in_rotation: m.in_rotation,
      weight: m.weight,
      priority: m.priority,
      consecutive_failures: m.consecutive_failures,
    })),
  };
}
