import type { Kysely } from "kysely";

/** The management lease: one row per lease name, judged by the database clock. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("leases")
    .addColumn("name", "text", (c) => c.primaryKey().notNull())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("expires_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("leases").execute();
}
