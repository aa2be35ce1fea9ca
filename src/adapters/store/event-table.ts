import type { Kysely } from "kysely";
import type { ReadAllOptions, ReadStreamOptions, StoredEvent } from "../../app/ports/event-store.js";
import type { DomainEvent } from "../../domain/events.js";
import type { AppendGroup } from "./batching-appender.js";

/**
 * The `events` table, identical in both dialects (migration `0001_events` of each), the reads both
 * SQL event stores run on it, and how SQLite's batch writer numbers a batch's rows and skips what
 * a retry already stored (sqlite/sqlite-batch-writer.ts; PostgreSQL numbers them in its insert:
 * postgres/postgres-batch-writer.ts).
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

/**
 * The highest stream version a row can hold (`stream_version` is a 32-bit integer column). A read
 * from beyond it finds nothing, and is not sent: PostgreSQL refuses to compare the column with a
 * larger number.
 */
const MAX_STREAM_VERSION = 2 ** 31 - 1;

export async function selectStream(
  db: Kysely<EventTables>,
  streamId: string,
  options: ReadStreamOptions = {},
): Promise<StoredEvent[]> {
  const { fromVersion, limit, types } = streamReadOptions(options);
  if (limit === 0 || types?.length === 0 || fromVersion > MAX_STREAM_VERSION) return [];
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
  const { fromPosition, toPosition, limit, types } = allReadOptions(options);
  if (limit === 0 || types?.length === 0 || fromPosition > toPosition) return [];
  let query = db
    .selectFrom("events")
    .select(["position", "stream_id", "stream_version", "payload"])
    .where("position", ">=", fromPosition);
  if (toPosition < Number.MAX_SAFE_INTEGER) query = query.where("position", "<=", toPosition);
  if (types) query = query.where("event_type", "in", types);
  const rows = await query.orderBy("position").limit(limit).execute();
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

export function allReadOptions(options: ReadAllOptions): {
  fromPosition: number;
  /** `Number.MAX_SAFE_INTEGER` when not given: no upper bound. */
  toPosition: number;
  limit: number;
  types: readonly string[] | undefined;
} {
  return {
    fromPosition: lowerBound(options.fromPosition, "fromPosition"),
    toPosition: upperBound(options.toPosition, "toPosition"),
    limit: readLimit(options.limit),
    types: options.types ? [...new Set(options.types)] : undefined,
  };
}

function upperBound(value: number | undefined, name: string): number {
  if (value === undefined) return Number.MAX_SAFE_INTEGER;
  if (!Number.isFinite(value)) throw new RangeError(`event store: ${name} must be a finite number`);
  return Math.min(Number.MAX_SAFE_INTEGER, Math.floor(value));
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
