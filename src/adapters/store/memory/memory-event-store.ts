import type { ReadAllOptions, ReadStreamOptions, StoredEvent } from "../../../app/ports/event-store.js";
import type { AppendGroup, GroupCommitOptions } from "../batching-appender.js";
import { allReadOptions, type EventsTable, streamReadOptions, toStoredEvent } from "../event-table.js";
import { GroupCommitEventStore } from "../group-commit-event-store.js";

/**
 * The rows of an in-process event store. Stores built on the same log see each other's events,
 * as replicas sharing one database would; a store closed and rebuilt on it finds its events again.
 */
export class MemoryEventLog {
  /** Index i holds position i + 1. */
  readonly rows: EventsTable[] = [];
  /** Rows of each stream; index i holds version i + 1. */
  readonly streams = new Map<string, EventsTable[]>();
  readonly eventIds = new Set<string>();
}

/**
 * The event store in process memory: the same queueing, batching, ordering and read semantics as
 * the SQL stores (events are serialized on append and parsed on read, so callers never share
 * objects with the store), nothing survives the process. Every event is kept; there is no
 * retention limit.
 */
export class MemoryEventStore extends GroupCommitEventStore {
  readonly durable = false;
  readonly #log: MemoryEventLog;

  constructor(options: GroupCommitOptions & { log?: MemoryEventLog } = {}) {
    const { log, ...groupCommit } = options;
    super(groupCommit);
    this.#log = log ?? new MemoryEventLog();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const { fromVersion, limit, types } = streamReadOptions(options);
    const rows = this.#log.streams.get(streamId) ?? [];
    const wanted = types && new Set(types);
    const out: StoredEvent[] = [];
    for (let i = fromVersion - 1; i < rows.length && out.length < limit; i++) {
      const row = rows[i]!;
      if (!wanted || wanted.has(row.event_type)) out.push(toStoredEvent(row));
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const { fromPosition, toPosition, limit, types } = allReadOptions(options);
    const rows = this.#log.rows;
    const wanted = types && new Set(types);
    const last = Math.min(rows.length, toPosition);
    const out: StoredEvent[] = [];
    for (let i = fromPosition - 1; i < last && out.length < limit; i++) {
      const row = rows[i]!;
      if (!wanted || wanted.has(row.event_type)) out.push(toStoredEvent(row));
    }
    return out;
  }

  /**
   * Synchronous inside (nothing awaited), so a batch lands whole or (on a thrown error, which
   * rejects) not at all, like a transaction.
   */
  protected async writeBatch(batch: readonly AppendGroup[]): Promise<void> {
    const log = this.#log;
    for (const group of batch) {
      let stream = log.streams.get(group.streamId);
      for (const event of group.events) {
        // Same rule as the SQL stores: an event_id already stored is not stored twice.
        if (log.eventIds.has(event.event_id)) continue;
        if (!stream) {
          stream = [];
          log.streams.set(group.streamId, stream);
        }
        const row: EventsTable = {
          position: log.rows.length + 1,
          stream_id: group.streamId,
          stream_version: stream.length + 1,
          ...event,
        };
        log.rows.push(row);
        stream.push(row);
        log.eventIds.add(event.event_id);
      }
    }
  }
}
