import type { Kysely } from "kysely";

/** Secrets every replica shares (the key `requestState` is signed with), made once. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("shared_secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("shared_secrets").execute();
}
