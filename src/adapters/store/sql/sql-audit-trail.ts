import type { Kysely, Selectable } from "kysely";
import type { AuditQuery, AuditRecord, AuditTrail } from "../../../app/ports/audit-trail.js";
import { chunks, clampLimit, fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

type Row = Selectable<StoreTables["audit_records"]>;

const toRecord = (row: Row): AuditRecord => ({
  id: row.id,
  occurred_at: row.occurred_at,
  actor: row.actor,
  action: row.action,
  target: row.target,
  outcome: row.outcome,
  details: fromJson<Record<string, unknown>>(row.details),
  tenant_id: row.tenant_id,
});

export class SqlAuditTrail implements AuditTrail {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const batch of chunks(records)) {
        await trx
          .insertInto("audit_records")
          .values(
            batch.map((r) => ({
              id: r.id,
              occurred_at: r.occurred_at,
              actor: r.actor,
              action: r.action,
              target: r.target,
              outcome: r.outcome,
              details: toJson(r.details),
              tenant_id: r.tenant_id,
            })),
          )
          .onConflict((oc) => oc.column("id").doNothing())
          .execute();
      }
    });
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    let select = this.db.selectFrom("audit_records").selectAll();
    if (query.from !== undefined) select = select.where("occurred_at", ">=", query.from);
    if (query.to !== undefined) select = select.where("occurred_at", "<", query.to);
    if (query.actor !== undefined) select = select.where("actor", "=", query.actor);
    if (query.action !== undefined) select = select.where("action", "=", query.action);
    if (query.tenant_id !== undefined) select = select.where("tenant_id", "=", query.tenant_id);
    const rows = await select
      .orderBy("occurred_at", "desc")
      .orderBy("seq", "desc")
      .limit(clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT))
      .execute();
    return rows.map(toRecord);
  }
}
