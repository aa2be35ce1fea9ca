import type { ServerState } from "../server/server-state.js";

/**
 * What a group needs to know of a member server's lifecycle. The group does not own the member's
 * lifecycle: the caller passes it in for every decision, so the group never reads a stale copy.
 */
export interface MemberStatus {
  readonly state: ServerState;
  /** Permanently blocked (`detection_enforcement:block`): cold, but no start is accepted. */
  readonly blocked?: boolean;
}

/**
 * Member id to its lifecycle, as a bare state or a {@link MemberStatus}. A member missing from
 * the map is treated as an unknown server: it reads `dead`, is never picked and is not startable.
 */
export type MemberStatuses = ReadonlyMap<string, ServerState | MemberStatus>;

const UNKNOWN: MemberStatus = { state: "dead" };

export function statusOf(statuses: MemberStatuses, id: string): MemberStatus {
  const status = statuses.get(id);
  if (status === undefined) return UNKNOWN;
  return typeof status === "string" ? { state: status } : status;
}

/** Cold and startable: a call to it starts it. */
export function isStartableCold(status: MemberStatus): boolean {
  return status.state === "cold" && status.blocked !== true;
}

/** Could serve a call if picked: not dead and not permanently blocked (rotation is checked apart). */
export function isServiceable(status: MemberStatus): boolean {
  return status.state !== "dead" && status.blocked !== true;
}
