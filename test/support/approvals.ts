import type { ApprovalRecord } from "../../src/app/ports/approval-repository.js";

/**
 * A pending approval, as the approval gate stores one, for a test to put straight in the store:
 * `fields` name it and say what differs from these defaults (no arguments, routed on the event
 * stream, requested by `cal` now, expiring in a minute, no call waiting on it, no tenant).
 */
export function pendingApproval(
  fields: Pick<ApprovalRecord, "approval_id" | "mcp_server_id" | "tool_name"> & Partial<ApprovalRecord>,
): ApprovalRecord {
  const now = Date.now() / 1000;
  return {
    arguments: {},
    arguments_hash: "0".repeat(64),
    state: "pending",
    channel: "event_stream",
    requested_at: now,
    expires_at: now + 60,
    call_deadline_at: null,
    requested_by: "cal",
    tenant_id: null,
    decided_by: null,
    decided_at: null,
    reason: null,
    ...fields,
  };
}
