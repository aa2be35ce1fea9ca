import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** API keys, stored only as SHA-256 hashes; `revoked` is 0/1. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("api_keys")
    .addColumn("key_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("principal_id", TEXT_C, (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .addColumn("expires_at", "double precision")
    .addColumn("revoked", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("revoked_at", "double precision")
    .addColumn("revoked_by", "text")
    .addColumn("revoke_reason", "text")
    .addColumn("last_used_at", "double precision")
    .addColumn("tenant_id", "text")
    .execute();
  await db.schema
    .createIndex("api_keys_principal")
    .on("api_keys")
    .columns(["principal_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("api_keys").execute();
}
