import type { Kysely } from "kysely";

/** Saga state with an optimistic-concurrency version. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sagas")
    .addColumn("saga_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("saga_type", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("updated_at", "real", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sagas_type").on("sagas").columns(["saga_type", "saga_id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("sagas").execute();
}
