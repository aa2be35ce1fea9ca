import { z } from "zod";
import { approvalNotFound } from "../../../domain/approval/approval-refusal.js";
import { approvalView } from "../../approvals/approval-view.js";
import { defineOperation } from "../../operation.js";
import { requireGate, visibleTo } from "./approval-access.js";

/** `GET /approvals/{approval_id}`: the approval object, 404 when unknown or another tenant's. */
export const getApproval = defineOperation({
  name: "get-approval",
  kind: "query",
  summary: "One approval of a held call, with its arguments redacted.",
  permissions: ["approval:read"],
  tenantAware: true,
  input: z.strictObject({ approval_id: z.string() }),
  async run(services, input, ctx) {
    requireGate(services);
    const approval = await services.repositories.approvals.get(input.approval_id);
    if (!approval || !visibleTo(ctx)(approval)) throw approvalNotFound();
    return approvalView(approval, services.clock.now() / 1000);
  },
});
