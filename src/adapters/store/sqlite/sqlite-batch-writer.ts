import type Database from "better-sqlite3";
import type { AppendGroup } from "../batching-appender.js";
import { numberRows, withoutStored } from "../event-table.js";

const LAST_POSITION = `select max("position") as "last" from "events"`;
const STREAM_VERSION = `select max("stream_version") as "version" from "events" where "stream_id" = ?`;
const STORED = `select 1 as "stored" from "events" where "event_id" = ?`;
const INSERT = `insert into "events" ("position", "stream_id", "stream_version", "event_id", "event_type",
  "occurred_at", "produced_by", "payload")
  values (@position, @stream_id, @stream_version, @event_id, @event_type, @occurred_at, @produced_by, @payload)`;

/**
 * Writes one batch of the SQLite event store in one `BEGIN IMMEDIATE` transaction, run
 * synchronously on the connection with prepared statements: the write lock is taken before
 * `max(position)` and the streams' versions are read, so positions and versions stay gap-free and
 * in commit order even with other connections or processes on the file (a second writer waits up
 * to the busy timeout). On a retry (`attempt > 1`) events already stored, or repeated within the
 * batch, are skipped by `event_id`: the previous attempt may have committed without our hearing
 * of it. Any failure rolls the transaction back and is thrown.
 *
 * Statements are asked of the connection on each write (its statement cache keeps them prepared),
 * so a table renamed or recreated meanwhile fails that write, and a later one works again.
 */
export function sqliteBatchWriter(
  database: Database.Database,
): (batch: readonly AppendGroup[], attempt: number) => void {
  const write = database.transaction((batch: readonly AppendGroup[], attempt: number) => {
    const groups = attempt > 1 ? withoutStored(batch, storedIds(database, batch)) : batch;
    if (groups.every((group) => group.events.length === 0)) return;
    const last = database.prepare(LAST_POSITION).get() as { last: number | null };
    const version = database.prepare(STREAM_VERSION);
    const versions = new Map<string, number>();
    for (const { streamId } of groups) {
      if (versions.has(streamId)) continue;
      const row = version.get(streamId) as { version: number | null };
      versions.set(streamId, Number(row.version ?? 0));
    }
    const insert = database.prepare(INSERT);
    for (const row of numberRows(groups, Number(last.last ?? 0), versions)) insert.run(row);
  });
  return (batch, attempt) => write.immediate(batch, attempt);
}

function storedIds(database: Database.Database, batch: readonly AppendGroup[]): Set<string> {
  const stored = database.prepare(STORED);
  const ids = new Set<string>();
  for (const group of batch) {
    for (const { event_id } of group.events) if (stored.get(event_id) !== undefined) ids.add(event_id);
  }
  return ids;
}
