import type { Kysely } from "kysely";

/** Metric history; `seq` orders samples recorded at the same instant. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("metric_samples")
    .addColumn("seq", "bigint", (c) => c.generatedAlwaysAsIdentity().primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("labels", "text", (c) => c.notNull())
    .addColumn("value", "double precision", (c) => c.notNull())
    .addColumn("recorded_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("metric_samples_name")
    .on("metric_samples")
    .columns(["name", "recorded_at"])
    .execute();
  await db.schema
    .createIndex("metric_samples_recorded")
    .on("metric_samples")
    .columns(["recorded_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("metric_samples").execute();
}
