import { approvalEvent, approvalStep } from "../../domain/approval/approval-machine.js";
import {
  APPROVAL_MESSAGES,
  ApprovalRefusal,
  approvalNotFound,
} from "../../domain/approval/approval-refusal.js";
import type { EventBus } from "../event-bus.js";
import type { ApprovalRecord, ApprovalState } from "../ports/approval-repository.js";
import type { Clock } from "../ports/clock.js";
import type { StoreRepositories } from "../ports/store-repositories.js";

/** The reason recorded on a hold expired by a decision that came after its deadline. */
const EXPIRED_BEFORE_DECISION = "the hold expired before a decision";

export interface DecisionRequest {
  readonly approvalId: string;
  readonly decision: "approve" | "deny";
  readonly reason: string | null;
  /** Who decides: the authenticated caller, or `<channel>:<actor>` for a signed callback. */
  readonly actor: string;
  /**
   * Whether the decider may see this approval at all (tenant confinement, a callback's channel).
   * One it may not see is answered exactly like one that does not exist.
   */
  readonly visible: (approval: ApprovalRecord) => boolean;
}

export interface DecisionResult {
  readonly approval_id: string;
  readonly state: ApprovalState;
}

/**
 * Decides a pending approval on the shared repository (spec 1 §3 "Approval"). The write is a
 * compare-and-set from `pending`, so of concurrent deciders on any replicas exactly one wins; the
 * others are answered from the state it left. The held call learns the decision from the repository
 * (and at once, through the event, when it waits on this replica).
 *
 * Throws {@link ApprovalRefusal}: 404 unknown or not visible; 409 `Approval already resolved` with
 * the state; 409 `Approval expired` when it had expired, or was still pending past `expires_at`
 * (then it expires first, as its timeout); 409 `Approval expired` with state `cancelled` when this
 * very approve came at or after the held call's deadline (recorded as cancelled, naming the
 * approver).
 */
export async function decideApproval(
  deps: { repositories: StoreRepositories; bus: EventBus; clock: Clock },
  request: DecisionRequest,
): Promise<DecisionResult> {
  const repository = deps.repositories.approvals;
  let current = await repository.get(request.approvalId);
  // Two rounds at most: a lost compare-and-set means the approval left `pending`, and the second
  // round answers from the state it is in now.
  for (let round = 0; round < 2; round++) {
    if (!current || !request.visible(current)) throw approvalNotFound();
    const at = deps.clock.now() / 1000;
    // Past `expires_at` the hold has timed out (spec 1 §3), whether or not a replica noticed yet (an
    // orphaned hold waits for the sweep): it expires now, and the decision is refused as too late.
    const timeout = approvalStep(current, "timeout", at);
    if (timeout.ok) {
      const expiry = { decided_by: null, decided_at: at, reason: EXPIRED_BEFORE_DECISION };
      const expired = await repository.decide(request.approvalId, "pending", timeout.to, expiry);
      if (!expired.decided) {
        current = expired.current;
        continue;
      }
      deps.bus.publish([
        approvalEvent(expired.approval, timeout.event, { by: null, at, reason: EXPIRED_BEFORE_DECISION }),
      ]);
      throw new ApprovalRefusal(409, { error: APPROVAL_MESSAGES.expired });
    }
    const step = approvalStep(current, request.decision, at);
    if (!step.ok) {
      if (step.refusal === "expired") throw new ApprovalRefusal(409, { error: APPROVAL_MESSAGES.expired });
      throw new ApprovalRefusal(409, { error: APPROVAL_MESSAGES.alreadyResolved, state: current.state });
    }
    const decision = { decided_by: request.actor, decided_at: at, reason: request.reason };
    const written = await repository.decide(request.approvalId, "pending", step.to, decision);
    if (!written.decided) {
      current = written.current;
      continue;
    }
    deps.bus.publish([
      approvalEvent(written.approval, step.event, { by: request.actor, at, reason: request.reason }),
    ]);
    if (step.to === "cancelled") {
      throw new ApprovalRefusal(409, { error: APPROVAL_MESSAGES.expired, state: "cancelled" });
    }
    return { approval_id: request.approvalId, state: step.to };
  }
  // Unreachable in practice: a second lost compare-and-set would need the approval to return to
  // `pending`, which no transition does.
  throw new ApprovalRefusal(409, {
    error: APPROVAL_MESSAGES.alreadyResolved,
    state: current?.state ?? "unknown",
  });
}
