import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/**
 * Runtime tool withdrawals, shared by every replica and kept across restarts. `tenant_id` is `''`
 * for a withdrawal for every tenant, so that the primary key covers it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("tool_withdrawals")
    .addColumn("mcp_server_id", TEXT_C, (c) => c.notNull())
    .addColumn("tool_name", TEXT_C, (c) => c.notNull())
    .addColumn("tenant_id", TEXT_C, (c) => c.notNull())
    .addColumn("withdrawn_by", "text", (c) => c.notNull())
    .addColumn("withdrawn_at", "double precision", (c) => c.notNull())
    .addPrimaryKeyConstraint("tool_withdrawals_pk", ["mcp_server_id", "tool_name", "tenant_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("tool_withdrawals").execute();
}
