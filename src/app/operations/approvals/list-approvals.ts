import { z } from "zod";
import { APPROVAL_STATES, type ApprovalState } from "../../../domain/approval/approval-machine.js";
import { ApprovalRefusal } from "../../../domain/approval/approval-refusal.js";
import { approvalView } from "../../approvals/approval-view.js";
import { defineOperation } from "../../operation.js";
import { requireGate } from "./approval-access.js";

const STATE_RULE = `state must be one of ${APPROVAL_STATES.join(", ")}`;

/** `GET /approvals`: spec 1 §4, `state` default `pending`, optional `provider_id`. */
export const listApprovals = defineOperation({
  name: "list-approvals",
  kind: "query",
  summary: "Approvals of held calls in one state (pending by default), oldest request first.",
  permissions: ["approval:read"],
  tenantAware: true,
  input: z.strictObject({
    state: z.unknown().optional(),
    provider_id: z.unknown().optional(),
  }),
  async run(services, input, ctx) {
    requireGate(services);
    const state = input.state === undefined || input.state === "" ? "pending" : input.state;
    if (typeof state !== "string" || !(APPROVAL_STATES as readonly string[]).includes(state)) {
      throw new ApprovalRefusal(400, { error: STATE_RULE });
    }
    const provider = input.provider_id;
    if (provider !== undefined && typeof provider !== "string") {
      throw new ApprovalRefusal(400, { error: "provider_id must be a string" });
    }
    const approvals = await services.repositories.approvals.list({
      state: state as ApprovalState,
      ...(provider !== undefined && provider !== "" && { provider_id: provider }),
      ...(ctx.confinedTo !== undefined && { tenant_id: ctx.confinedTo }),
    });
    const now = services.clock.now() / 1000;
    return approvals.map((approval) => approvalView(approval, now));
  },
});
