import type { DomainEventPayload } from "../events.js";

/** Spec 1 §2 "Approval": the states of a held call's approval. */
export type ApprovalState = "pending" | "approved" | "denied" | "expired" | "cancelled";

export const APPROVAL_STATES: readonly ApprovalState[] = [
  "pending",
  "approved",
  "denied",
  "expired",
  "cancelled",
];

/**
 * What can happen to an approval.
 * - `approve`, `deny`: an approver's decision (REST or a signed chat callback).
 * - `timeout`: the hold's deadline (`expires_at`) was reached without a decision. The held call's
 *   own deadline (`call_deadline_at`, when earlier) changes no state: the call stops waiting, and
 *   the approval stays pending until `expires_at`; an approve from then on cancels it.
 * - `abandon`: the held call stopped waiting before its deadline (the caller went away, or the
 *   replica holding it shut down); the deadline of the hold is the moment the call stopped.
 * - `undeliverable`: with `approvals.delivery.required`, the request could not be delivered on its
 *   channel, so the gate fails closed.
 */
export type ApprovalTrigger = "approve" | "deny" | "timeout" | "abandon" | "undeliverable";

/**
 * When a row applies, relative to the deadline of the row's trigger: for `approve`, the moment the
 * held call stops waiting (`call_deadline_at` when earlier than `expires_at`); for the others,
 * `expires_at`.
 */
type Timing = "before_deadline" | "at_or_after_deadline" | "any";

type ApprovalEventType =
  | "ToolApprovalGranted"
  | "ToolApprovalDenied"
  | "ToolApprovalExpired"
  | "ToolApprovalCancelled";

interface Row {
  readonly trigger: ApprovalTrigger;
  readonly timing: Timing;
  readonly to: ApprovalState;
  readonly event: ApprovalEventType;
}

/**
 * Spec 1 §3 "Approval", from `pending` (every other state is final). An approve at or after the
 * moment the held call stops waiting (its batch deadline, or `expires_at`) cancels the approval
 * (REST 409): nobody waits to run it any more. The hold expires at `expires_at`. A denial is
 * recorded whenever it comes while the approval is still pending.
 */
export const APPROVAL_TRANSITIONS: readonly Row[] = [
  { trigger: "approve", timing: "before_deadline", to: "approved", event: "ToolApprovalGranted" },
  { trigger: "approve", timing: "at_or_after_deadline", to: "cancelled", event: "ToolApprovalCancelled" },
  { trigger: "deny", timing: "any", to: "denied", event: "ToolApprovalDenied" },
  { trigger: "timeout", timing: "at_or_after_deadline", to: "expired", event: "ToolApprovalExpired" },
  { trigger: "abandon", timing: "any", to: "expired", event: "ToolApprovalExpired" },
  { trigger: "undeliverable", timing: "any", to: "denied", event: "ToolApprovalDenied" },
];

/** The facts about an approval the machine and its events need. Times are epoch seconds. */
export interface ApprovalFacts {
  readonly approval_id: string;
  readonly mcp_server_id: string;
  readonly tool_name: string;
  readonly tenant_id: string | null;
  readonly state: ApprovalState;
  readonly expires_at: number;
  /** When the held call stops waiting, if before `expires_at` (epoch seconds); null: `expires_at`. */
  readonly call_deadline_at?: number | null;
}

/** The first instant at which the held call no longer waits for this approval. */
export function waitEnd(approval: Pick<ApprovalFacts, "expires_at" | "call_deadline_at">): number {
  const callDeadline = approval.call_deadline_at;
  return callDeadline != null && callDeadline < approval.expires_at ? callDeadline : approval.expires_at;
}

export type ApprovalStep =
  | { readonly ok: true; readonly to: ApprovalState; readonly event: ApprovalEventType }
  /**
   * `resolved`: already approved, denied or cancelled; `expired`: already expired; `not_due`: a
   * timeout before the deadline (nothing happens).
   */
  | { readonly ok: false; readonly refusal: "resolved" | "expired" | "not_due" };

/** The transition `trigger` causes at time `at` (epoch seconds), or why there is none. */
export function approvalStep(approval: ApprovalFacts, trigger: ApprovalTrigger, at: number): ApprovalStep {
  if (approval.state === "expired") return { ok: false, refusal: "expired" };
  if (approval.state !== "pending") return { ok: false, refusal: "resolved" };
  const late = at >= (trigger === "approve" ? waitEnd(approval) : approval.expires_at);
  const row = APPROVAL_TRANSITIONS.find(
    (r) => r.trigger === trigger && (r.timing === "any" || (r.timing === "at_or_after_deadline") === late),
  );
  return row ? { ok: true, to: row.to, event: row.event } : { ok: false, refusal: "not_due" };
}

/** Who made the transition and why, as recorded on the approval. */
export interface ApprovalDecisionFacts {
  /** The approver (or the one whose late approve cancelled it); null for the gateway itself. */
  readonly by: string | null;
  /** Epoch seconds. */
  readonly at: number;
  readonly reason: string | null;
}

/** The domain event of a transition (decisions "Approvals": the events and their fields). */
export function approvalEvent(
  approval: ApprovalFacts,
  event: ApprovalEventType,
  decision: ApprovalDecisionFacts,
): DomainEventPayload {
  const about = {
    approval_id: approval.approval_id,
    mcp_server_id: approval.mcp_server_id,
    tool_name: approval.tool_name,
    tenant_id: approval.tenant_id,
  };
  switch (event) {
    case "ToolApprovalGranted":
      return { type: event, ...about, decided_by: decision.by, decided_at: decision.at };
    case "ToolApprovalDenied":
      return { type: event, ...about, decided_by: decision.by, reason: decision.reason };
    case "ToolApprovalExpired":
      return { type: event, ...about, expired_at: decision.at, reason: decision.reason };
    case "ToolApprovalCancelled":
      return { type: event, ...about, attempted_by: decision.by, reason: decision.reason };
  }
}
