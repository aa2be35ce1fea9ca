import type { Kysely } from "kysely";

/**
 * Leader-only commands handed to the fleet manager. Coordination needs PostgreSQL, so a SQLite
 * file never holds rows here; the table exists so that both dialects keep one schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("leader_commands")
    .addColumn("command_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("operation", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("caller", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("requested_at", "real", (c) => c.notNull())
    .addColumn("claimed_generation", "integer")
    .addColumn("outcome", "text")
    .addColumn("completed_at", "real")
    .execute();
  await db.schema
    .createIndex("leader_commands_requested_at")
    .on("leader_commands")
    .columns(["requested_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("leader_commands").execute();
}
