/** A group member as the group object lists it (spec 1 §2 "Group"). */
export interface GroupMember {
  id: string;
  state: string;
  in_rotation: boolean;
  /** 1-100, used by `weighted_round_robin` and `random`. */
  weight: number;
  /** 1-100, lower first, used by `priority`. */
  priority: number;
  consecutive_failures: number;
}

/** The group object (`GET /groups/`, `GET /groups/{id}`). */
export interface Group {
  group_id: string;
  description: string | null;
  /** `inactive`, `partial`, `healthy`, or `degraded` while the circuit breaker is open. */
  state: string;
  strategy: string;
  min_healthy: number;
  healthy_count: number;
  members_in_rotation_count: number;
  total_members: number;
  is_available: boolean;
  circuit_open: boolean;
  members: GroupMember[];
}

/** The state stream's events a group page follows: its own state, and its members'. */
export const GROUP_EVENTS = ["GroupStateChanged", "ProviderStateChanged"];

/** "2 healthy · 3 in rotation · 3 members". */
export function counts(group: Group): string {
  return `${group.healthy_count} healthy · ${group.members_in_rotation_count} in rotation · ${group.total_members} total`;
}
