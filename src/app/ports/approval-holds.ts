import type { GatedCall } from "../routing/call-gate.js";

/** Why a call is held for a human decision. */
export interface HoldReason {
  /** `approval_list` of a tool access policy, `l7_policy` (`requireApproval`), `ui_resource` consent. */
  readonly source: "approval_list" | "l7_policy" | "ui_resource";
  /** The rule or pattern that asked for the hold, when there is one. */
  readonly rule?: string;
}

/**
 * Human approval holds: `hold` resolves once an approver approved exactly these arguments, and
 * throws a `GatewayError` when the hold is denied, expires or cannot be delivered.
 */
export interface ApprovalHolds {
  hold(call: GatedCall, reason: HoldReason): Promise<void>;
}
