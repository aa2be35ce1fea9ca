import type { Kysely } from "kysely";

/**
 * The append-only event table (see docs/event-store.md). `position` deliberately has no sequence
 * or identity default: sequences hand out numbers at `nextval` time, not at commit, and never
 * give back the numbers of rolled-back transactions, so concurrent appenders would commit
 * positions out of order and leave gaps that a reader tailing `position > n` would skip forever.
 * The event store assigns `max(position) + 1` while holding a transaction-level advisory lock
 * instead, which makes positions gap-free and equal to commit order across replicas.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("position", "bigint", (c) => c.primaryKey())
    .addColumn("stream_id", "text", (c) => c.notNull())
    .addColumn("stream_version", "integer", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull().unique())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("occurred_at", "double precision", (c) => c.notNull())
    .addColumn("produced_by", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    // Also the index of `readStream` (a range of one stream, in version order) and of the
    // current-version lookup of each append. A type filter is applied within that range; no
    // separate type index, which every append would pay for.
    .addUniqueConstraint("events_stream_version_unique", ["stream_id", "stream_version"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("events").execute();
}
