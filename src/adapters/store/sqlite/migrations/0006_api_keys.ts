import type { Kysely } from "kysely";

/** API keys, stored only as SHA-256 hashes; `revoked` is 0/1. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("api_keys")
    .addColumn("key_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("expires_at", "real")
    .addColumn("revoked", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("revoked_at", "real")
    .addColumn("revoked_by", "text")
    .addColumn("revoke_reason", "text")
    .addColumn("last_used_at", "real")
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
