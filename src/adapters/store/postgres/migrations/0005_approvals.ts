import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Approvals of held tool calls; (state, expires_at) serves the expiry sweep. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("approvals")
    .addColumn("approval_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("mcp_server_id", "text", (c) => c.notNull())
    .addColumn("tool_name", "text", (c) => c.notNull())
    .addColumn("arguments", "text", (c) => c.notNull())
    .addColumn("arguments_hash", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("requested_at", "double precision", (c) => c.notNull())
    .addColumn("expires_at", "double precision", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("tenant_id", "text")
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "double precision")
    .addColumn("reason", "text")
    .execute();
  await db.schema
    .createIndex("approvals_state_expires")
    .on("approvals")
    .columns(["state", "expires_at"])
    .execute();
  await db.schema
    .createIndex("approvals_server")
    .on("approvals")
    .columns(["mcp_server_id", "requested_at"])
    .execute();
  await db.schema.createIndex("approvals_requested").on("approvals").columns(["requested_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("approvals").execute();
}
