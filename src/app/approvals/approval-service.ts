import type { ApprovalHolds } from "../ports/approval-holds.js";
import type { CallbackVerifier } from "../ports/callback-verifier.js";

/**
 * The approval gate as the application sees it: holds for the call path, and the verifier of
 * signed chat callbacks for the callback route. Decisions themselves are made on the shared
 * approval repository (`decide-approval.ts`), so any replica can decide any approval.
 */
export interface ApprovalService extends ApprovalHolds {
  /** Null when no channel has a signing secret: signed callbacks are then refused. */
  readonly callbacks: CallbackVerifier | null;
}
