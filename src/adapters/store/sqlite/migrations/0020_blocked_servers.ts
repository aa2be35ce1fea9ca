import type { Kysely } from "kysely";

/** Servers blocked for good, kept across restarts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("blocked_servers")
    .addColumn("mcp_server_id", "text", (c) => c.primaryKey())
    .addColumn("blocked_by", "text", (c) => c.notNull())
    .addColumn("blocked_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("blocked_servers").execute();
}
