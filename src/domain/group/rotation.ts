import type { DomainEventPayload } from "../events.js";
import type { GroupMember } from "./group-snapshot.js";

/**
 * Member rotation (spec 1 §3 "Group availability") as a transition table. Every result about a
 * member (a call outcome, a health check, a completed start) moves its counters; a row decides
 * whether that moves it in or out of rotation. Rotation is independent of the member's lifecycle
 * state: a dead member may stay in rotation (it is simply never picked).
 */
export type MemberResult = "success" | "failure";

export interface RotationThresholds {
  readonly unhealthy_threshold: number;
  readonly healthy_threshold: number;
}

/** Guards read the member's counters after this result was counted. */
const GUARDS = {
  reaches_unhealthy_threshold: (m, t) => m.consecutive_failures >= t.unhealthy_threshold,
  reaches_healthy_threshold: (m, t) => m.consecutive_successes >= t.healthy_threshold,
} satisfies Record<string, (counted: GroupMember, thresholds: RotationThresholds) => boolean>;

export interface RotationRow {
  readonly in_rotation: boolean;
  readonly on: MemberResult;
  readonly when: keyof typeof GUARDS;
  readonly to: boolean;
}

/** First matching row wins; no row means rotation is unchanged. */
export const ROTATION_TRANSITIONS: readonly RotationRow[] = [
  { in_rotation: true, on: "failure", when: "reaches_unhealthy_threshold", to: false },
  { in_rotation: false, on: "success", when: "reaches_healthy_threshold", to: true },
];

export interface RotationResult {
  readonly member: GroupMember;
  readonly events: DomainEventPayload[];
}

export function applyMemberResult(
  groupId: string,
  member: GroupMember,
  result: MemberResult,
  thresholds: RotationThresholds,
): RotationResult {
  const counted: GroupMember =
    result === "success"
      ? { ...member, consecutive_successes: member.consecutive_successes + 1, consecutive_failures: 0 }
      : { ...member, consecutive_failures: member.consecutive_failures + 1, consecutive_successes: 0 };
  const row = ROTATION_TRANSITIONS.find(
    (r) => r.in_rotation === member.in_rotation && r.on === result && GUARDS[r.when](counted, thresholds),
  );
  if (!row) return { member: counted, events: [] };
  const next: GroupMember = { ...counted, in_rotation: row.to };
  return {
    member: next,
    events: [
      {
        type: "GroupMemberRotationChanged",
        group_id: groupId,
        member_id: member.id,
        in_rotation: next.in_rotation,
        consecutive_failures: next.consecutive_failures,
        consecutive_successes: next.consecutive_successes,
      },
    ],
  };
}
