/** One audit record. Times are epoch seconds, fractional. */
export interface AuditRecord {
  /** Unique; appending a record whose id is already stored changes nothing (retries are safe). */
  readonly id: string;
  readonly occurred_at: number;
  /** The principal id, or `anonymous` with auth disabled. */
  readonly actor: string;
  /** What was done: an operation or event name (`register-server`, `tool_invocation`, ...). */
  readonly action: string;
  /** What it was done to (a server id, a key id, ...); empty when there is none. */
  readonly target: string;
  /** `success`, `denied`, `failure`, ... as the caller names it. */
  readonly outcome: string;
  /** Any JSON object; read back through JSON (`undefined` members are absent). */
  readonly details: Readonly<Record<string, unknown>>;
  readonly tenant_id: string | null;
}

export interface AuditQuery {
  /** Earliest `occurred_at` returned (inclusive). */
  from?: number;
  /** Latest `occurred_at` returned (exclusive). */
  to?: number;
  actor?: string;
  action?: string;
  tenant_id?: string;
  /** At most this many records, clamped to 1-10,000; default 100. */
  limit?: number;
}

/**
 * The append-only audit trail.
 *
 * Guaranteed: records are never changed once appended; `append` of several records is atomic;
 * `query` returns the newest first (by `occurred_at`, ties in reverse order of appending), filters
 * combine with AND. Not guaranteed: that records appended by different replicas at the same instant
 * are ordered the same way everywhere; retention (nothing is deleted).
 */
export interface AuditTrail {
  append(records: readonly AuditRecord[]): Promise<void>;
  query(query?: AuditQuery): Promise<AuditRecord[]>;
}
