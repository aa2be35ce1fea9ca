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
  /** Only records done to this target (a tool invocation's: the server or group called). */
  target?: string;
  /** Only records of this outcome (`success`, `denied`, `failure`, ...). */
  outcome?: string;
  /** Only records whose `details` name this tool ({@link AUDIT_TOOL_DETAIL}): tool invocations. */
  tool?: string;
  /**
   * The cursor of the next page: only records that come after the record with this id in the
   * query's order (older, or of the same instant and appended before it), whether or not that
   * record matches the other filters. An id not stored returns nothing.
   */
  after?: string;
  /** At most this many records, clamped to 1-10,000; default 100. */
  limit?: number;
}

/** The `details` key naming the tool of a tool invocation record (compliance exports read it too). */
export const AUDIT_TOOL_DETAIL = "mcp.tool.name";

/**
 * The append-only audit trail.
 *
 * Guaranteed: records are never changed once appended; `append` of several records is atomic;
 * `query` returns the newest first (by `occurred_at`, ties in reverse order of appending), filters
 * combine with AND; paging with `after` (the last id of a page) neither repeats nor skips a record
 * that was stored when the first page was read. Not guaranteed: that records appended by different
 * replicas at the same instant are ordered the same way everywhere; that a filter on `target`,
 * `outcome` or `tool` is served by an index (they narrow what the others select); retention
 * (nothing is deleted).
 */
export interface AuditTrail {
  append(records: readonly AuditRecord[]): Promise<void>;
  query(query?: AuditQuery): Promise<AuditRecord[]>;
}
