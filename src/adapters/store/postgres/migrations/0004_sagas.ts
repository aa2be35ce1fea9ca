import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Saga state with an optimistic-concurrency version. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sagas")
    .addColumn("saga_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("saga_type", TEXT_C, (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("updated_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sagas_type").on("sagas").columns(["saga_type", "saga_id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("sagas").execute();
}
