import type { Kysely, Selectable } from "kysely";
import type {
  ApprovalDecision,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalRepository,
  ApprovalState,
  DecideResult,
} from "../../../app/ports/approval-repository.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["approvals"]>;

const toRecord = (row: Row): ApprovalRecord => ({
  ...row,
  arguments: fromJson<Record<string, unknown>>(row.arguments),
  state: row.state as ApprovalState,
});

export class SqlApprovalRepository implements ApprovalRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async create(approval: ApprovalRecord): Promise<void> {
    await this.db
      .insertInto("approvals")
      .values({
        approval_id: approval.approval_id,
        mcp_server_id: approval.mcp_server_id,
        tool_name: approval.tool_name,
        arguments: toJson(approval.arguments),
        arguments_hash: approval.arguments_hash,
        state: approval.state,
        channel: approval.channel,
        requested_at: approval.requested_at,
        expires_at: approval.expires_at,
        call_deadline_at: approval.call_deadline_at,
        requested_by: approval.requested_by,
        tenant_id: approval.tenant_id,
        decided_by: approval.decided_by,
        decided_at: approval.decided_at,
        reason: approval.reason,
      })
      .execute();
  }

  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db
      .selectFrom("approvals")
      .selectAll()
      .where("approval_id", "=", approvalId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    let select = this.db.selectFrom("approvals").selectAll();
    if (filter.state !== undefined) select = select.where("state", "=", filter.state);
    if (filter.provider_id !== undefined) select = select.where("mcp_server_id", "=", filter.provider_id);
    if (filter.tenant_id !== undefined) select = select.where("tenant_id", "=", filter.tenant_id);
    const rows = await select.orderBy("requested_at").orderBy("approval_id").execute();
    return rows.map(toRecord);
  }

  async decide(
    approvalId: string,
    fromState: ApprovalState,
    toState: ApprovalState,
    decision: ApprovalDecision,
  ): Promise<DecideResult> {
    // One conditional UPDATE: under concurrent deciders the row lock (PostgreSQL) or the single
    // writer (SQLite) lets exactly one see `state = fromState`.
    const row = await this.db
      .updateTable("approvals")
      .set({
        state: toState,
        decided_by: decision.decided_by,
        decided_at: decision.decided_at,
        reason: decision.reason,
      })
      .where("approval_id", "=", approvalId)
      .where("state", "=", fromState)
      .returningAll()
      .executeTakeFirst();
    if (row) return { decided: true, approval: toRecord(row) };
    return { decided: false, current: await this.get(approvalId) };
  }

  async expirePending(now: number): Promise<ApprovalRecord[]> {
    const rows = await this.db
      .updateTable("approvals")
      .set({ state: "expired", decided_by: null, decided_at: now })
      .where("state", "=", "pending")
      .where("expires_at", "<=", now)
      .returningAll()
      .execute();
    return rows.map(toRecord).sort((a, b) => a.requested_at - b.requested_at);
  }
}
