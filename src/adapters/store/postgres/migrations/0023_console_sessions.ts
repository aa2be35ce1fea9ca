import { type Kysely, sql } from "kysely";

/** Byte-order collation, as the other tables' keys. */
const TEXT_C = sql`text collate "C"`;

/** Signed-in console sessions (docs/console.md), by the SHA-256 of the cookie's token. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("console_sessions")
    .addColumn("token_hash", TEXT_C, (c) => c.primaryKey())
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("principal_type", "text", (c) => c.notNull())
    .addColumn("tenant_id", "text")
    .addColumn("roles", "text", (c) => c.notNull())
    .addColumn("key_id", "text")
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .addColumn("expires_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("console_sessions_expires_at")
    .on("console_sessions")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("console_sessions").execute();
}
