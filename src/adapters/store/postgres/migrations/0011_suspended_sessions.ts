import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Suspended MCP sessions, shared by every replica. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("suspended_sessions")
    .addColumn("session_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("suspended_by", "text", (c) => c.notNull())
    .addColumn("replica", "text", (c) => c.notNull())
    .addColumn("suspended_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("suspended_sessions").execute();
}
