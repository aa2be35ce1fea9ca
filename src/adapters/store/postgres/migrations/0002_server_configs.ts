import { type Kysely, sql } from "kysely";

/** Byte-order collation: listings sort the same as on SQLite, whatever the database's locale. */
const TEXT_C = sql`text collate "C"`;

/** Server configurations registered through REST: the ServerSpec as JSON. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("server_configs")
    .addColumn("id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("spec", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .addColumn("updated_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("server_configs").execute();
}
