/** A member of a group as the group sees it: its share, its rank and its place in rotation. */
export interface GroupMember {
  readonly id: string;
  /** 1-100: share under `weighted_round_robin` and `random`. */
  readonly weight: number;
  /** 1-100: lower is preferred by `priority`. */
  readonly priority: number;
  readonly in_rotation: boolean;
  /** Failed calls or health checks in a row; a success resets it. */
  readonly consecutive_failures: number;
  /** Successful calls, health checks or starts in a row; a failure resets it. */
  readonly consecutive_successes: number;
}
