import type { Kysely } from "kysely";

/**
 * Runtime tool withdrawals, shared by every replica and kept across restarts. `tenant_id` is `''`
 * for a withdrawal for every tenant, so that the primary key covers it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("tool_withdrawals")
    .addColumn("mcp_server_id", "text", (c) => c.notNull())
    .addColumn("tool_name", "text", (c) => c.notNull())
    .addColumn("tenant_id", "text", (c) => c.notNull())
    .addColumn("withdrawn_by", "text", (c) => c.notNull())
    .addColumn("withdrawn_at", "real", (c) => c.notNull())
    .addPrimaryKeyConstraint("tool_withdrawals_pk", ["mcp_server_id", "tool_name", "tenant_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("tool_withdrawals").execute();
}
