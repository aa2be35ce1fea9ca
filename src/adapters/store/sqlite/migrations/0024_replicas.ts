import type { Kysely } from "kysely";

/** Replicas sharing the store, each as its last heartbeat left it (docs/replicas.md "Who is there"). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("replicas")
    .addColumn("instance_id", "text", (c) => c.primaryKey())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("address", "text")
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("started_at", "real", (c) => c.notNull())
    .addColumn("last_seen_at", "real", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("replicas").execute();
}
