import { type Kysely, sql } from "kysely";
import type { ReadAllOptions, ReadStreamOptions, StoredEvent } from "../../app/ports/event-store.js";
import type { DomainEvent } from "../../domain/events.js";
import type { AppendGroup } from "./batching-appender.js";

/**
 * The `events` table, identical in both dialects (migration `0001_events` of each), the reads both
 * SQL event stores run on it, how a batch's rows are numbered, and PostgreSQL's batch insert
 * (SQLite writes its batches with prepared statements: sqlite/sqlite-batch-writer.ts).
 */
export interface EventsTable {
  /** Global commit order from 1, gap-free; assigned as `max + 1` by the single writer of the moment. */
  position: number;
  stream_id: string;
  /** Version within the stream from 1, gap-free; unique with `stream_id`. */
  stream_version: number;
  /** Unique: the idempotency key of a retried batch. */
  event_id: string;
  event_type: string;
  /** Epoch seconds, fractional. */
  occurred_at: number;
  produced_by: string;
  /** JSON of the whole DomainEvent. */
  payload: string;
}

export interface EventTables {
  events: EventsTable;
}

/** Default page size of both reads when `limit` is not given. */
export const DEFAULT_READ_LIMIT = 100;

/**
 * Rows per statement and values per `IN` list: far below SQLite's 32,766 bound parameters and
 * PostgreSQL's 65,535 (8 columns a row), whatever batch size is configured.
 */
const STATEMENT_CHUNK = 1_000;

/**
 * Writes one batch inside a transaction the caller opened while holding the table's write lock
 * (PostgreSQL's advisory lock), so that nobody else assigns positions or versions until this
 * transaction ends. On a retry (`attempt > 1`) events already stored, or
 * repeated within the batch, are skipped by `event_id`: the previous attempt may have committed
 * without our hearing of it.
 */
export async function insertBatch(
  trx: Kysely<EventTables>,
  batch: readonly AppendGroup[],
  attempt: number,
): Promise<void> {
  const groups = attempt > 1 ? withoutStored(batch, await storedIds(trx, batch)) : batch;
  if (groups.every((group) => group.events.length === 0)) return;

  const last = await trx
    .selectFrom("events")
    .select((eb) => eb.fn.max("position").as("last"))
    .executeTakeFirst();
  const versions = await currentVersions(trx, [...new Set(groups.map((g) => g.streamId))]);
  const rows = numberRows(groups, Number(last?.last ?? 0), versions);
  for (const part of chunks(rows)) await trx.insertInto("events").values(part).execute();
}

/**
 * The last version of each stream, one index seek per stream: a correlated `max()` per id, answered
 * from the end of the (stream_id, stream_version) index. The plainer `max(stream_version) ... where
 * stream_id in (...) group by stream_id` reads every index entry of those streams instead, so its
 * cost would grow with the streams' length. The ids travel as one text[] parameter, whatever
 * their number.
 */
async function currentVersions(
  trx: Kysely<EventTables>,
  streamIds: readonly string[],
): Promise<Map<string, number>> {
  const { rows } = await sql<{ stream_id: string; version: number | null }>`select ids.id as stream_id,
      (select max(e.stream_version) from events e where e.stream_id = ids.id) as version
      from unnest(${streamIds}::text[]) as ids(id)`.execute(trx);
  return new Map(rows.map((row) => [row.stream_id, Number(row.version ?? 0)]));
}

async function storedIds(trx: Kysely<EventTables>, batch: readonly AppendGroup[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const ids of chunks(batch.flatMap((g) => g.events.map((e) => e.event_id)))) {
    const rows = await trx.selectFrom("events").select("event_id").where("event_id", "in", ids).execute();
    for (const row of rows) stored.add(row.event_id);
  }
  return stored;
}

/**
 * The rows of a batch: positions follow `lastPosition` in batch order, and each stream's versions
 * follow its current one (`versions`, by stream id; absent is 0).
 */
export function numberRows(
  groups: readonly AppendGroup[],
  lastPosition: number,
  versions: ReadonlyMap<string, number>,
): EventsTable[] {
  let position = lastPosition;
  const next = new Map(versions);
  const rows: EventsTable[] = [];
  for (const group of groups) {
    let version = next.get(group.streamId) ?? 0;
    for (const event of group.events) {
      rows.push({ position: ++position, stream_id: group.streamId, stream_version: ++version, ...event });
    }
    next.set(group.streamId, version);
  }
  return rows;
}

/** A retried batch without the events already stored (`stored` ids) or repeated within it. */
export function withoutStored(batch: readonly AppendGroup[], stored: ReadonlySet<string>): AppendGroup[] {
  const seen = new Set(stored);
  return batch.map((group) => ({
    streamId: group.streamId,
    events: group.events.filter((event) => {
      if (seen.has(event.event_id)) return false;
      seen.add(event.event_id);
      return true;
    }),
  }));
}

export async function selectStream(
  db: Kysely<EventTables>,
  streamId: string,
  options: ReadStreamOptions = {},
): Promise<StoredEvent[]> {
  const { fromVersion, limit, types } = streamReadOptions(options);
  if (limit === 0 || types?.length === 0) return [];
  let query = db
    .selectFrom("events")
    .select(["position", "stream_id", "stream_version", "payload"])
    .where("stream_id", "=", streamId)
    .where("stream_version", ">=", fromVersion);
  if (types) query = query.where("event_type", "in", types);
  const rows = await query.orderBy("stream_version").limit(limit).execute();
  return rows.map(toStoredEvent);
}

export async function selectAll(
  db: Kysely<EventTables>,
  options: ReadAllOptions = {},
): Promise<StoredEvent[]> {
  const { fromPosition, limit } = allReadOptions(options);
  if (limit === 0) return [];
  const rows = await db
    .selectFrom("events")
    .select(["position", "stream_id", "stream_version", "payload"])
    .where("position", ">=", fromPosition)
    .orderBy("position")
    .limit(limit)
    .execute();
  return rows.map(toStoredEvent);
}

export function toStoredEvent(
  row: Pick<EventsTable, "position" | "stream_id" | "stream_version" | "payload">,
): StoredEvent {
  return {
    position: Number(row.position),
    stream_id: row.stream_id,
    stream_version: Number(row.stream_version),
    event: JSON.parse(row.payload) as DomainEvent,
  };
}

/** Defaults and checks shared by every store, so that they answer the same options alike. */
export function streamReadOptions(options: ReadStreamOptions): {
  fromVersion: number;
  limit: number;
  types: readonly string[] | undefined;
} {
  return {
    fromVersion: lowerBound(options.fromVersion, "fromVersion"),
    limit: readLimit(options.limit),
    types: options.types ? [...new Set(options.types)] : undefined,
  };
}

export function allReadOptions(options: ReadAllOptions): { fromPosition: number; limit: number } {
  return { fromPosition: lowerBound(options.fromPosition, "fromPosition"), limit: readLimit(options.limit) };
}

function lowerBound(value: number | undefined, name: string): number {
  if (value === undefined) return 1;
  if (!Number.isFinite(value)) throw new RangeError(`event store: ${name} must be a finite number`);
  return Math.max(1, Math.ceil(value));
}

function readLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_READ_LIMIT;
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError("event store: limit must be an integer >= 0");
  return value;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += STATEMENT_CHUNK) out.push(items.slice(i, i + STATEMENT_CHUNK));
  return out;
}
