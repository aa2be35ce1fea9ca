import { type Kysely, sql } from "kysely";

/** Byte-order collation, as the other id columns. */
const TEXT_C = sql`text collate "C"`;

/** Leader-only commands a follower received, waiting for (or answered by) the fleet manager. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("leader_commands")
    .addColumn("command_id", TEXT_C, (c) => c.primaryKey().notNull())
    .addColumn("operation", "text", (c) => c.notNull())
    .addColumn("input", "text", (c) => c.notNull())
    .addColumn("caller", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("requested_at", "double precision", (c) => c.notNull())
    .addColumn("claimed_generation", "bigint")
    .addColumn("outcome", "text")
    .addColumn("completed_at", "double precision")
    .execute();
  // The leader scans the open commands oldest first; the sweep deletes by age.
  await db.schema
    .createIndex("leader_commands_requested_at")
    .on("leader_commands")
    .columns(["requested_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("leader_commands").execute();
}
