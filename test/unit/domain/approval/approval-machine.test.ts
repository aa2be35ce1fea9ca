import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  APPROVAL_STATES,
  type ApprovalFacts,
  type ApprovalState,
  type ApprovalTrigger,
  approvalEvent,
  approvalStep,
  waitEnd,
} from "../../../../src/domain/approval/approval-machine.js";

const approval = (state: ApprovalState = "pending", expires_at = 1_300): ApprovalFacts => ({
  approval_id: "ap1",
  mcp_server_id: "files",
  tool_name: "delete",
  tenant_id: "t1",
  state,
  expires_at,
});

const TRIGGERS: ApprovalTrigger[] = ["approve", "deny", "timeout", "abandon", "undeliverable"];

describe("the approval state machine (spec 1 §3)", () => {
  it.each([
    [
      "an approve before the deadline grants",
      "approve",
      1_299.999,
      { ok: true, to: "approved", event: "ToolApprovalGranted" },
    ],
    [
      "an approve at the exact deadline is the batch-deadline race",
      "approve",
      1_300,
      { ok: true, to: "cancelled", event: "ToolApprovalCancelled" },
    ],
    [
      "an approve after the deadline cancels",
      "approve",
      1_400,
      { ok: true, to: "cancelled", event: "ToolApprovalCancelled" },
    ],
    [
      "a deny before the deadline denies",
      "deny",
      1_000,
      { ok: true, to: "denied", event: "ToolApprovalDenied" },
    ],
    [
      "a deny after the deadline is still recorded as denied",
      "deny",
      1_400,
      { ok: true, to: "denied", event: "ToolApprovalDenied" },
    ],
    [
      "the timeout at the deadline expires",
      "timeout",
      1_300,
      { ok: true, to: "expired", event: "ToolApprovalExpired" },
    ],
    ["a timeout before the deadline does nothing", "timeout", 1_299, { ok: false, refusal: "not_due" }],
    [
      "a call that stops waiting expires its hold",
      "abandon",
      1_000,
      { ok: true, to: "expired", event: "ToolApprovalExpired" },
    ],
    [
      "an undeliverable request is denied (fail closed)",
      "undeliverable",
      1_000,
      { ok: true, to: "denied", event: "ToolApprovalDenied" },
    ],
  ] as const)("%s", (_name, trigger, at, expected) => {
    expect(approvalStep(approval(), trigger, at)).toEqual(expected);
  });

  it("cancels an approve once the held call's own deadline passed, while the hold expires only at expires_at", () => {
    const held = { ...approval(), call_deadline_at: 1_060 };
    expect(approvalStep(held, "approve", 1_059.999)).toMatchObject({ ok: true, to: "approved" });
    expect(approvalStep(held, "approve", 1_060)).toMatchObject({ ok: true, to: "cancelled" });
    expect(approvalStep(held, "approve", 1_200)).toMatchObject({ ok: true, to: "cancelled" });
    expect(approvalStep(held, "deny", 1_200)).toMatchObject({ ok: true, to: "denied" });
    expect(approvalStep(held, "timeout", 1_200)).toEqual({ ok: false, refusal: "not_due" });
    expect(approvalStep(held, "timeout", 1_300)).toMatchObject({ ok: true, to: "expired" });
    expect(waitEnd(held)).toBe(1_060);
    // A call deadline at or after expires_at changes nothing: the hold's own deadline comes first.
    expect(waitEnd({ ...approval(), call_deadline_at: 1_400 })).toBe(1_300);
    expect(waitEnd({ ...approval(), call_deadline_at: null })).toBe(1_300);
  });

  it("answers an expired approval as expired and any other decided one as resolved", () => {
    expect(approvalStep(approval("expired"), "approve", 0)).toEqual({ ok: false, refusal: "expired" });
    for (const state of ["approved", "denied", "cancelled"] as const) {
      expect(approvalStep(approval(state), "deny", 0)).toEqual({ ok: false, refusal: "resolved" });
    }
  });

  it("never leaves a final state and never returns to pending, whatever happens when", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...APPROVAL_STATES),
        fc.constantFrom(...TRIGGERS),
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        (state, trigger, expiresAt, at) => {
          const step = approvalStep(approval(state, expiresAt), trigger, at);
          if (state !== "pending") expect(step.ok).toBe(false);
          if (step.ok) expect(step.to).not.toBe("pending");
          // A call is only ever let through by an approve that came before its deadline.
          if (step.ok && step.to === "approved") expect(trigger === "approve" && at < expiresAt).toBe(true);
        },
      ),
    );
  });

  it("builds each event with the fields of decisions 'Approvals'", () => {
    const decided = { by: "ann", at: 1_250, reason: "ok" };
    const about = { approval_id: "ap1", mcp_server_id: "files", tool_name: "delete", tenant_id: "t1" };
    expect(approvalEvent(approval(), "ToolApprovalGranted", decided)).toEqual({
      type: "ToolApprovalGranted",
      ...about,
      decided_by: "ann",
      decided_at: 1_250,
    });
    expect(approvalEvent(approval(), "ToolApprovalDenied", decided)).toMatchObject({
      decided_by: "ann",
      reason: "ok",
    });
    expect(
      approvalEvent(approval(), "ToolApprovalExpired", { by: null, at: 1_300, reason: null }),
    ).toMatchObject({
      expired_at: 1_300,
    });
    expect(approvalEvent(approval(), "ToolApprovalCancelled", decided)).toMatchObject({
      attempted_by: "ann",
    });
  });
});
