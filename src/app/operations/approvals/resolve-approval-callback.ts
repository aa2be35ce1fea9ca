import { z } from "zod";
import { ApprovalRefusal } from "../../../domain/approval/approval-refusal.js";
import { decideApproval } from "../../approvals/decide-approval.js";
import { defineOperation } from "../../operation.js";
import { requireGate } from "./approval-access.js";
import { decisionOf } from "./resolve-approval.js";

/**
 * The decision carried by a chat tool's signed callback (docs/approvals.md "Signed callbacks").
 * The edge has verified the signature: `channel` is the channel whose secret signed it, and the
 * caller's principal is `<channel>:<actor>`. A channel decides only approvals routed on it; any
 * other is answered like an unknown one.
 */
export const resolveApprovalCallback = defineOperation({
  name: "resolve-approval-callback",
  kind: "command",
  summary: "Approve or deny a held call from a signed chat callback.",
  // The signature is the credential: the edge verified it before building the caller.
  permissions: [],
  input: z.strictObject({
    channel: z.string().min(1),
    approval_id: z.unknown().optional(),
    decision: z.unknown().optional(),
    reason: z.unknown().optional(),
  }),
  async run(services, input, ctx) {
    requireGate(services);
    if (typeof input.approval_id !== "string" || input.approval_id === "") {
      throw new ApprovalRefusal(400, { error: "approval_id must be a non-empty string" });
    }
    const { decision, reason } = decisionOf(input);
    return decideApproval(services, {
      approvalId: input.approval_id,
      decision,
      reason,
      actor: ctx.principal.id,
      visible: (approval) => approval.channel === input.channel,
    });
  },
});
