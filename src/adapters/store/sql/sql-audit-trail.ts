import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import {
  AUDIT_TOOL_DETAIL,
  type AuditQuery,
  type AuditRecord,
  type AuditTrail,
} from "../../../app/ports/audit-trail.js";
import type { SqlDialectName } from "../sql-store.js";
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

/**
 * The tool a record's `details` (JSON text in both dialects) names, as SQL. The key holds dots, so
 * SQLite's path quotes it; PostgreSQL takes it as a parameter.
 */
function toolOf(dialect: SqlDialectName): RawBuilder<string | null> {
  return dialect === "postgres"
    ? sql<string | null>`(details::jsonb ->> ${AUDIT_TOOL_DETAIL})`
    : sql<string | null>`json_extract(details, ${`$."${AUDIT_TOOL_DETAIL}"`})`;
}

export class SqlAuditTrail implements AuditTrail {
  constructor(
    private readonly db: Kysely<StoreTables>,
    private readonly dialect: SqlDialectName,
  ) {}

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
    if (query.after !== undefined) {
      // Records never change, so the cursor's place read first is its place when the page is read.
      const cursor = await this.db
        .selectFrom("audit_records")
        .select(["occurred_at", "seq"])
        .where("id", "=", query.after)
        .executeTakeFirst();
      if (!cursor) return [];
      select = select.where((eb) =>
        eb.or([
          eb("occurred_at", "<", cursor.occurred_at),
          eb.and([eb("occurred_at", "=", cursor.occurred_at), eb("seq", "<", cursor.seq)]),
        ]),
      );
    }
    if (query.from !== undefined) select = select.where("occurred_at", ">=", query.from);
    if (query.to !== undefined) select = select.where("occurred_at", "<", query.to);
    if (query.actor !== undefined) select = select.where("actor", "=", query.actor);
    if (query.action !== undefined) select = select.where("action", "=", query.action);
    if (query.tenant_id !== undefined) select = select.where("tenant_id", "=", query.tenant_id);
    if (query.target !== undefined) select = select.where("target", "=", query.target);
    if (query.outcome !== undefined) select = select.where("outcome", "=", query.outcome);
    if (query.tool !== undefined) select = select.where(toolOf(this.dialect), "=", query.tool);
    const rows = await select
      .orderBy("occurred_at", "desc")
      .orderBy("seq", "desc")
      .limit(clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT))
      .execute();
    return rows.map(toRecord);
  }
}
