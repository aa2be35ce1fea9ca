import type { Kysely } from "kysely";

/** Operators' rejections of discovered definitions, kept across restarts and takeovers. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("discovery_rejections")
    .addColumn("mcp_server_id", "text", (c) => c.primaryKey())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("rejected_by", "text", (c) => c.notNull())
    .addColumn("rejected_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("discovery_rejections").execute();
}
