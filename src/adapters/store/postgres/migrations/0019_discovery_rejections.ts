import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Operators' rejections of discovered definitions, kept across restarts and takeovers. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("discovery_rejections")
    .addColumn("mcp_server_id", TEXT_C, (c) => c.primaryKey())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("rejected_by", "text", (c) => c.notNull())
    .addColumn("rejected_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("discovery_rejections").execute();
}
