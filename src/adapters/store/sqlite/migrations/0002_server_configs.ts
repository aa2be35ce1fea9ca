import type { Kysely } from "kysely";

/** Server configurations registered through REST: the ServerSpec as JSON. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("server_configs")
    .addColumn("id", "text", (c) => c.primaryKey().notNull())
    .addColumn("spec", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("updated_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("server_configs").execute();
}
