import { type Kysely, sql } from "kysely";

/** Byte-order collation, as the other id columns. */
const TEXT_C = sql`text collate "C"`;

/** MCP sessions of the gateway's endpoint, so that any replica can serve a session's requests. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("mcp_sessions")
    .addColumn("session_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("protocol_version", "text", (c) => c.notNull())
    .addColumn("client_info", "text", (c) => c.notNull())
    .addColumn("client_capabilities", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .addColumn("last_seen_at", "double precision", (c) => c.notNull())
    .addColumn("ended_at", "double precision")
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
