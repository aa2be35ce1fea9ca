import type { Kysely } from "kysely";

/** The append-only audit trail; `seq` orders records appended at the same instant. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_records")
    .addColumn("seq", "bigint", (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("occurred_at", "double precision", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("tenant_id", "text")
    .execute();
  await db.schema
    .createIndex("audit_records_occurred_at")
    .on("audit_records")
    .columns(["occurred_at"])
    .execute();
  await db.schema
    .createIndex("audit_records_actor")
    .on("audit_records")
    .columns(["actor", "occurred_at"])
    .execute();
  await db.schema
    .createIndex("audit_records_action")
    .on("audit_records")
    .columns(["action", "occurred_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("audit_records").execute();
}
