import type { ApprovalRecord } from "../ports/approval-repository.js";

/**
 * The approval object of decisions "Approvals", in its field order. `expires_in_seconds` counts
 * down while the approval is pending (whole seconds, rounded up) and is 0 once it is decided.
 */
export function approvalView(approval: ApprovalRecord, nowSeconds: number) {
  const left = approval.state === "pending" ? Math.max(0, Math.ceil(approval.expires_at - nowSeconds)) : 0;
  return {
    approval_id: approval.approval_id,
    mcp_server_id: approval.mcp_server_id,
    tool_name: approval.tool_name,
    arguments: approval.arguments,
    arguments_hash: approval.arguments_hash,
    state: approval.state,
    channel: approval.channel,
    requested_at: approval.requested_at,
    expires_at: approval.expires_at,
    expires_in_seconds: left,
    requested_by: approval.requested_by,
    tenant_id: approval.tenant_id,
    decided_by: approval.decided_by,
    decided_at: approval.decided_at,
    reason: approval.reason,
  };
}

export type ApprovalView = ReturnType<typeof approvalView>;
