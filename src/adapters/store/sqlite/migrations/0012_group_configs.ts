import type { Kysely } from "kysely";

/** Groups created through REST: the group definition as JSON. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("group_configs")
    .addColumn("id", "text", (c) => c.primaryKey().notNull())
    .addColumn("definition", "text", (c) => c.notNull())
    .addColumn("created_at", "real", (c) => c.notNull())
    .addColumn("updated_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("group_configs").execute();
}
