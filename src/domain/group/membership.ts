import type { DomainEventPayload } from "../events.js";
import type { CanaryConfig } from "./canary.js";
import { INITIAL_CIRCUIT } from "./circuit-breaker.js";
import {
  GROUP_DEFAULTS,
  type GroupInput,
  type GroupMember,
  type GroupSettings,
  type GroupSnapshot,
  type MemberInput,
  requireInt,
} from "./group-snapshot.js";
import { countMembers, groupStateOf, settle } from "./group-state.js";
import type { MemberStatuses } from "./member-status.js";
import { INITIAL_CURSOR, resolveStrategy, type StrategyCursor } from "./strategies.js";

/**
 * Building a group and changing its configuration or membership. Runtime facts (rotation, counters,
 * the circuit) survive every change for members that stay; a new member starts in rotation with
 * zero counters. Invalid numbers throw a RangeError: the config schema and REST bodies validate first.
 */
export interface Reconfigured {
  readonly snapshot: GroupSnapshot;
  readonly events: DomainEventPayload[];
  /** For the caller's log (an unknown strategy fell back to round_robin). */
  readonly warnings: string[];
}

export function createGroup(
  input: GroupInput,
  statuses: MemberStatuses,
): { snapshot: GroupSnapshot; warnings: string[] } {
  const { settings, warnings } = settingsOf(input);
  const members = membersOf(input.members ?? [], []);
  const counts = countMembers(members, statuses);
  return {
    snapshot: {
      group_id: input.group_id,
      settings,
      members,
      circuit: INITIAL_CIRCUIT,
      cursor: INITIAL_CURSOR,
      last_state: groupStateOf(false, counts, settings.min_healthy),
    },
    warnings,
  };
}

/** A configuration reload: settings and members replaced as given (absent keys take defaults). */
export function reconfigure(
  snapshot: GroupSnapshot,
  input: GroupInput,
  statuses: MemberStatuses,
): Reconfigured {
  const { settings, warnings } = settingsOf(input);
  const members = membersOf(input.members ?? [], snapshot.members);
  return finish(snapshot, settings, members, statuses, warnings);
}

/** `PUT /groups/{id}`: only the keys given change. */
export function updateSettings(
  snapshot: GroupSnapshot,
  patch: { readonly strategy?: string; readonly min_healthy?: number; readonly description?: string | null },
  statuses: MemberStatuses,
): Reconfigured {
  const resolved = patch.strategy === undefined ? null : resolveStrategy(patch.strategy);
  const settings: GroupSettings = {
    ...snapshot.settings,
    ...(resolved ? { strategy: resolved.strategy } : {}),
    ...(patch.min_healthy === undefined
      ? {}
      : { min_healthy: requireInt("min_healthy", patch.min_healthy, 1) }),
    ...(patch.description === undefined ? {} : { description: patch.description }),
  };
  return finish(snapshot, settings, snapshot.members, statuses, resolved?.warning ? [resolved.warning] : []);
}

/** `POST /groups/{id}/members`; an existing member takes the new weight and priority and keeps its counters. */
export function addMember(
  snapshot: GroupSnapshot,
  input: MemberInput,
  statuses: MemberStatuses,
): Reconfigured {
  const exists = snapshot.members.some((m) => m.id === input.id);
  const inputs = snapshot.members.map((m) => (m.id === input.id ? input : m));
  return setMembers(snapshot, exists ? inputs : [...inputs, input], statuses);
}

/** `DELETE /groups/{id}/members/{member_id}`; removing an absent member changes nothing. */
export function removeMember(
  snapshot: GroupSnapshot,
  memberId: string,
  statuses: MemberStatuses,
): Reconfigured {
  return setMembers(
    snapshot,
    snapshot.members.filter((m) => m.id !== memberId),
    statuses,
  );
}

export function setMembers(
  snapshot: GroupSnapshot,
  inputs: readonly MemberInput[],
  statuses: MemberStatuses,
): Reconfigured {
  return finish(snapshot, snapshot.settings, membersOf(inputs, snapshot.members), statuses, []);
}

export function hasMember(snapshot: GroupSnapshot, memberId: string): boolean {
  return snapshot.members.some((m) => m.id === memberId);
}

function finish(
  prev: GroupSnapshot,
  settings: GroupSettings,
  members: readonly GroupMember[],
  statuses: MemberStatuses,
  warnings: string[],
): Reconfigured {
  const cursor =
    settings.strategy === prev.settings.strategy
      ? carryCursor(prev.cursor, prev.members, members)
      : INITIAL_CURSOR;
  const { snapshot, events } = settle({ ...prev, settings, members, cursor }, statuses, []);
  return { snapshot, events, warnings };
}

/** Keeps the round-robin turn on the same member and forgets the weights of members that left. */
function carryCursor(cursor: StrategyCursor, before: readonly GroupMember[], after: readonly GroupMember[]) {
  const lastId = before[cursor.last_index]?.id;
  const ids = new Set(after.map((m) => m.id));
  const wrr = Object.fromEntries(Object.entries(cursor.wrr_current).filter(([id]) => ids.has(id)));
  return { last_index: after.findIndex((m) => m.id === lastId), wrr_current: wrr };
}

function settingsOf(input: GroupInput): { settings: GroupSettings; warnings: string[] } {
  const { strategy, warning } = resolveStrategy(input.strategy);
  const d = GROUP_DEFAULTS;
  return {
    settings: {
      description: input.description ?? null,
      strategy,
      min_healthy: requireInt("min_healthy", input.min_healthy ?? d.min_healthy, 1),
      unhealthy_threshold: requireInt(
        "health.unhealthy_threshold",
        input.health?.unhealthy_threshold ?? d.unhealthy_threshold,
        1,
      ),
      healthy_threshold: requireInt(
        "health.healthy_threshold",
        input.health?.healthy_threshold ?? d.healthy_threshold,
        1,
      ),
      failure_threshold: requireInt(
        "circuit_breaker.failure_threshold",
        input.circuit_breaker?.failure_threshold ?? d.failure_threshold,
        1,
      ),
      canary: canaryOf(input.canary),
    },
    warnings: warning ? [warning] : [],
  };
}

function canaryOf(input: GroupInput["canary"]): CanaryConfig | null {
  if (input == null) return null;
  const split = input.split_pct ?? 0;
  if (!(split >= 0 && split <= 100))
    throw new RangeError(`canary.split_pct must be in [0, 100], got ${split}`);
  return { member: input.member ?? null, split_pct: split, pinned_tenants: { ...input.pinned_tenants } };
}

function membersOf(inputs: readonly MemberInput[], existing: readonly GroupMember[]): GroupMember[] {
  const seen = new Set<string>();
  return inputs.map((input) => {
    if (seen.has(input.id)) throw new RangeError(`member '${input.id}' is listed twice`);
    seen.add(input.id);
    const weight = requireInt("weight", input.weight ?? GROUP_DEFAULTS.weight, 1, 100);
    const priority = requireInt("priority", input.priority ?? GROUP_DEFAULTS.priority, 1, 100);
    const kept = existing.find((m) => m.id === input.id);
    return kept
      ? { ...kept, weight, priority }
      : {
          id: input.id,
          weight,
          priority,
          in_rotation: true,
          consecutive_failures: 0,
          consecutive_successes: 0,
        };
  });
}
