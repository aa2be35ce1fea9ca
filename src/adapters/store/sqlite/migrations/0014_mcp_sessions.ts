import type { Kysely } from "kysely";

/** MCP sessions of the gateway's endpoint, so that a session outlives its in-process copy. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("mcp_sessions")
    .addColumn("session_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("protocol_version", "text", (c) => c.notNull())
    .addColumn("client_info", "text", (c) => c.notNull())
    .addColumn("client_capabilities", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("last_seen_at", "real", (c) => c.notNull())
    .addColumn("ended_at", "real")
    .execute();
  // The sweep deletes by age.
  await db.schema
    .createIndex("mcp_sessions_last_seen_at")
    .on("mcp_sessions")
    .column("last_seen_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("mcp_sessions").execute();
}
