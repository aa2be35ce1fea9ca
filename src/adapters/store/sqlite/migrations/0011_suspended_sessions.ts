import type { Kysely } from "kysely";

/** Suspended MCP sessions, shared by every replica. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("suspended_sessions")
    .addColumn("session_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("suspended_by", "text", (c) => c.notNull())
    .addColumn("replica", "text", (c) => c.notNull())
    .addColumn("suspended_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("suspended_sessions").execute();
}
