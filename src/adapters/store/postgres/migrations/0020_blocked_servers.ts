import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Servers blocked for good, kept across restarts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("blocked_servers")
    .addColumn("mcp_server_id", TEXT_C, (c) => c.primaryKey())
    .addColumn("blocked_by", "text", (c) => c.notNull())
    .addColumn("blocked_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("blocked_servers").execute();
}
