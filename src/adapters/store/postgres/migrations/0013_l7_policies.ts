import { type Kysely, sql } from "kysely";

/** L7 egress policies attached through REST, one per MCP server: the compiled policy as JSON. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("l7_policies")
    // Byte-order collation: listings sort the same as on SQLite, whatever the database's locale.
    .addColumn("mcp_server_id", sql`text collate "C"`, (c) => c.primaryKey().notNull())
    .addColumn("policy", "text", (c) => c.notNull())
    .addColumn("policy_id", "text", (c) => c.notNull())
    .addColumn("updated_at", "double precision", (c) => c.notNull())
    .addColumn("updated_by", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("l7_policies").execute();
}
