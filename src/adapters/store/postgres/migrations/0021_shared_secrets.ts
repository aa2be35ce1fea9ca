import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Secrets every replica shares (the key `requestState` is signed with), made once. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("shared_secrets")
    .addColumn("name", TEXT_C, (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("shared_secrets").execute();
}
