import { z } from "zod";
import { APPROVAL_MESSAGES, ApprovalRefusal } from "../../../domain/approval/approval-refusal.js";
import { decideApproval } from "../../approvals/decide-approval.js";
import { defineOperation } from "../../operation.js";
import { optionalText, requireGate, visibleTo } from "./approval-access.js";

/** The body checks of both resolve routes: a decision of `approve` or `deny`, an optional reason. */
export function decisionOf(input: { decision?: unknown; reason?: unknown }): {
  decision: "approve" | "deny";
  reason: string | null;
} {
  const decision = input.decision;
  if (decision !== "approve" && decision !== "deny") {
    throw new ApprovalRefusal(400, { error: APPROVAL_MESSAGES.badDecision });
  }
  const reason = optionalText(input.reason);
  if (reason === undefined) throw new ApprovalRefusal(400, { error: "reason must be a string" });
  return { decision, reason };
}

/**
 * `POST /approvals/{approval_id}/resolve` (spec 1 §3-4, decisions "Approvals"): approves or denies
 * a pending approval as the authenticated caller. Answers `{approval_id, state}`; refusals are
 * `ApprovalRefusal`s with the flat bodies of the approval routes.
 */
export const resolveApproval = defineOperation({
  name: "resolve-approval",
  kind: "command",
  summary: "Approve or deny a held call (once; a late approve cancels it).",
  permissions: ["approval:resolve"],
  tenantAware: true,
  input: z.strictObject({
    approval_id: z.string(),
    decision: z.unknown().optional(),
    reason: z.unknown().optional(),
  }),
  async run(services, input, ctx) {
    requireGate(services);
    const { decision, reason } = decisionOf(input);
    return decideApproval(services, {
      approvalId: input.approval_id,
      decision,
      reason,
      actor: ctx.principal.id,
      visible: visibleTo(ctx),
    });
  },
});
