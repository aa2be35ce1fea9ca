/** A suspended MCP session of the gateway's own endpoint. `suspended_at` is epoch seconds, fractional. */
export interface SuspendedSession {
  /** 1-128 letters, digits, dashes or underscores (checked by the caller). */
  readonly session_id: string;
  readonly reason: string;
  readonly suspended_by: string;
  /** Instance id of the replica that took the suspension request. */
  readonly replica: string;
  readonly suspended_at: number;
}

/**
 * Suspended sessions, shared so that every replica refuses a suspended session whichever one the
 * load balancer picks.
 *
 * Guaranteed: at most one record per session; suspending a suspended session replaces the record
 * (latest reason, actor, replica and time); `list` is ordered by `suspended_at`, then id. Not
 * guaranteed: that the session exists; any push to other replicas (they read the store).
 */
export interface SuspendedSessionRepository {
  suspend(session: SuspendedSession): Promise<void>;
  /** True when the session was suspended (and now is not). */
  resume(sessionId: string): Promise<boolean>;
  isSuspended(sessionId: string): Promise<boolean>;
  get(sessionId: string): Promise<SuspendedSession | undefined>;
  list(): Promise<SuspendedSession[]>;
}
