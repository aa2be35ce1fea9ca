export type ApprovalState = "pending" | "approved" | "denied" | "expired" | "cancelled";

/**
 * A held tool call waiting for (or past) a human decision, as spec 3 "Approvals" shapes it, without
 * `expires_in_seconds` (derived by the presenter). Times are epoch seconds, fractional.
 */
export interface ApprovalRecord {
  readonly approval_id: string;
  readonly mcp_server_id: string;
  readonly tool_name: string;
  /** Already redacted by the caller; stored and returned as given (through JSON). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** SHA-256 of the canonical, unredacted arguments. */
  readonly arguments_hash: string;
  readonly state: ApprovalState;
  readonly channel: string;
  readonly requested_at: number;
  readonly expires_at: number;
  /**
   * When the held call stops waiting (its batch deadline: the call's own timeout), if before
   * `expires_at`; null when it waits until `expires_at`. An approve from then on cancels the
   * approval (REST 409), while the approval itself stays pending until `expires_at`.
   */
  readonly call_deadline_at: number | null;
  readonly requested_by: string;
  readonly tenant_id: string | null;
  readonly decided_by: string | null;
  readonly decided_at: number | null;
  readonly reason: string | null;
}

export interface ApprovalFilter {
  state?: ApprovalState;
  /** The `provider_id` filter of the REST route: matches `mcp_server_id`. */
  provider_id?: string;
  tenant_id?: string;
}

export interface ApprovalDecision {
  readonly decided_by: string | null;
  readonly decided_at: number;
  readonly reason: string | null;
}

export type DecideResult =
  | { readonly decided: true; readonly approval: ApprovalRecord }
  /** `current` is the approval as stored now, or undefined when it does not exist. */
  | { readonly decided: false; readonly current: ApprovalRecord | undefined };

/**
 * Approvals, shared by every replica.
 *
 * Guaranteed: `decide` is a compare-and-set: it changes the approval only when its state is
 * `fromState` at the moment of writing, so of two replicas deciding the same approval at most one
 * succeeds; `expirePending` moves every pending approval whose `expires_at <= now` to `expired` and
 * returns each one to exactly one caller, even when replicas sweep at the same time; `list` is
 * ordered by `requested_at`, oldest first (ties by id). Not guaranteed: that the transition is legal
 * (the approval state machine in `domain` decides that before calling `decide`).
 */
export interface ApprovalRepository {
  /** Rejects when `approval_id` already exists. */
  create(approval: ApprovalRecord): Promise<void>;
  get(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** Filters combine with AND; an absent filter matches everything. */
  list(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  decide(
    approvalId: string,
    fromState: ApprovalState,
    toState: ApprovalState,
    decision: ApprovalDecision,
  ): Promise<DecideResult>;
  /** Expires pending approvals past their deadline: `decided_at` becomes `now`, `decided_by` null. */
  expirePending(now: number): Promise<ApprovalRecord[]>;
}
