import { type Kysely, sql } from "kysely";

/** Byte-order collation, as the other tables' keys. */
const TEXT_C = sql`text collate "C"`;

/** Replicas sharing the store, each as its last heartbeat left it (docs/replicas.md "Who is there"). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("replicas")
    .addColumn("instance_id", TEXT_C, (c) => c.primaryKey())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("address", "text")
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("started_at", "double precision", (c) => c.notNull())
    .addColumn("last_seen_at", "double precision", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("replicas").execute();
}
