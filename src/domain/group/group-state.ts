import type { DomainEventPayload } from "../events.js";
import type { GroupMember } from "./group-member.js";
import type { GroupSnapshot, GroupState } from "./group-snapshot.js";
import { isServiceable, isStartableCold, type MemberStatuses, statusOf } from "./member-status.js";

/**
 * Group availability (spec 1 §2 "Group", §3; decisions "Groups"). The group state is derived, never
 * assigned: `degraded` while the circuit is open; otherwise `inactive` when no member is ready and
 * in rotation, `partial` below `min_healthy`, `healthy` otherwise. A group is never `cold`.
 */
export type { GroupState };
export const GROUP_STATES: readonly GroupState[] = ["inactive", "partial", "healthy", "degraded"];

export interface GroupCounts {
  /** Ready and in rotation. */
  readonly healthy_count: number;
  /** In rotation, in any lifecycle state. */
  readonly members_in_rotation_count: number;
  readonly total_members: number;
  /** In rotation and serviceable (not dead, not blocked): what closes the circuit. */
  readonly serviceable_in_rotation: number;
}

export function countMembers(members: readonly GroupMember[], statuses: MemberStatuses): GroupCounts {
  let healthy = 0;
  let inRotation = 0;
  let serviceable = 0;
  for (const member of members) {
    if (!member.in_rotation) continue;
    inRotation++;
    const status = statusOf(statuses, member.id);
    if (status.state === "ready") healthy++;
    if (isServiceable(status)) serviceable++;
  }
  return {
    healthy_count: healthy,
    members_in_rotation_count: inRotation,
    total_members: members.length,
    serviceable_in_rotation: serviceable,
  };
}

export function groupStateOf(circuitOpen: boolean, counts: GroupCounts, minHealthy: number): GroupState {
  if (circuitOpen) return "degraded";
  if (counts.healthy_count === 0) return "inactive";
  return counts.healthy_count < minHealthy ? "partial" : "healthy";
}

/**
 * The members a pick may choose from, in member order: those in rotation and serviceable. When
 * there are none but every member is cold and startable (a fresh group, or one stopped whole), all
 * of them: the call starts the one picked, so such a group still routes (decisions "Groups").
 */
export function pickableMembers(members: readonly GroupMember[], statuses: MemberStatuses): GroupMember[] {
  const inRotation = members.filter((m) => m.in_rotation && isServiceable(statusOf(statuses, m.id)));
  if (inRotation.length > 0) return inRotation;
  if (members.length > 0 && members.every((m) => isStartableCold(statusOf(statuses, m.id))))
    return [...members];
  return [];
}

/** True exactly when a pick would find a member, circuit aside. */
export function isAvailable(members: readonly GroupMember[], statuses: MemberStatuses): boolean {
  return pickableMembers(members, statuses).length > 0;
}

/**
 * Finishes an operation: recomputes the group state for the statuses given and, when it differs from
 * the state last reported, records it and appends `GroupStateChanged` after the operation's events.
 */
export function settle(
  snapshot: GroupSnapshot,
  statuses: MemberStatuses,
  events: DomainEventPayload[],
): { snapshot: GroupSnapshot; events: DomainEventPayload[] } {
  const counts = countMembers(snapshot.members, statuses);
  const state = groupStateOf(snapshot.circuit.open, counts, snapshot.settings.min_healthy);
  if (state === snapshot.last_state) return { snapshot, events };
  return {
    snapshot: { ...snapshot, last_state: state },
    events: [
      ...events,
      {
        type: "GroupStateChanged",
        group_id: snapshot.group_id,
        old_state: snapshot.last_state,
        new_state: state,
      },
    ],
  };
}
