import type { Kysely } from "kysely";

/**
 * The append-only event table (see docs/event-store.md). `position` is the global commit order;
 * the event store assigns it explicitly (`max + 1`) inside a `BEGIN IMMEDIATE` transaction, which
 * SQLite serializes across connections and processes. AUTOINCREMENT keeps a position from ever
 * being reused even if rows were deleted by hand.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("position", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("stream_id", "text", (c) => c.notNull())
    .addColumn("stream_version", "integer", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull().unique())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("occurred_at", "real", (c) => c.notNull())
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
