import type {
  ApprovalDecision,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalRepository,
  ApprovalState,
  DecideResult,
} from "../../../app/ports/approval-repository.js";
import { byText, jsonCopy } from "./memory-helpers.js";

const byRequest = (a: ApprovalRecord, b: ApprovalRecord): number =>
  a.requested_at - b.requested_at || byText(a.approval_id, b.approval_id);

export class MemoryApprovalRepository implements ApprovalRepository {
  private readonly approvals = new Map<string, ApprovalRecord>();

  async create(approval: ApprovalRecord): Promise<void> {
    if (this.approvals.has(approval.approval_id)) {
      throw new Error(`approval ${approval.approval_id} already exists`);
    }
    this.approvals.set(approval.approval_id, jsonCopy(approval));
  }

  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    const approval = this.approvals.get(approvalId);
    return approval && jsonCopy(approval);
  }

  async list(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    return [...this.approvals.values()]
      .filter(
        (a) =>
          (filter.state === undefined || a.state === filter.state) &&
          (filter.provider_id === undefined || a.mcp_server_id === filter.provider_id) &&
          (filter.tenant_id === undefined || a.tenant_id === filter.tenant_id),
      )
      .sort(byRequest)
      .map(jsonCopy);
  }

  async decide(
    approvalId: string,
    fromState: ApprovalState,
    toState: ApprovalState,
    decision: ApprovalDecision,
  ): Promise<DecideResult> {
    const current = this.approvals.get(approvalId);
    if (!current || current.state !== fromState)
      return { decided: false, current: current && jsonCopy(current) };
    const approval: ApprovalRecord = {
      ...current,
      state: toState,
      decided_by: decision.decided_by,
      decided_at: decision.decided_at,
      reason: decision.reason,
    };
    this.approvals.set(approvalId, approval);
    return { decided: true, approval: jsonCopy(approval) };
  }

  async expirePending(now: number): Promise<ApprovalRecord[]> {
    const expired: ApprovalRecord[] = [];
    for (const approval of this.approvals.values()) {
      if (approval.state !== "pending" || approval.expires_at > now) continue;
      const next: ApprovalRecord = { ...approval, state: "expired", decided_by: null, decided_at: now };
      this.approvals.set(approval.approval_id, next);
      expired.push(next);
    }
    return expired.sort(byRequest).map(jsonCopy);
  }
}
