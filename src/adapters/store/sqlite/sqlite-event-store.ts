import { type Kysely, sql } from "kysely";
import type {
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  StoredEvent,
} from "../../../app/ports/event-store.js";
import type { DomainEvent } from "../../../domain/events.js";
import { type AppendGroup, BatchingAppender, type GroupCommitOptions } from "../batching-appender.js";
import { type EventTables, insertBatch, selectAll, selectStream } from "../event-table.js";
import type { SqlStore } from "../sql-store.js";
import { openSqlite } from "./open-sqlite.js";

export interface SqliteEventStoreOptions extends GroupCommitOptions {
  /** Close the SqlStore when the event store closes (it was opened for the event store alone). */
  ownsStore?: boolean;
}

/**
 * The event store on SQLite (see docs/event-store.md). Each batch is one `BEGIN IMMEDIATE`
 * transaction: it takes the database's write lock before reading `max(position)` and the streams'
 * versions, so positions and versions stay gap-free and in commit order even with several
 * connections or processes on the same file (a second writer waits up to the busy timeout).
 * Durable across a process crash (WAL, `synchronous=NORMAL`); not across power loss.
 */
export class SqliteEventStore implements EventStore {
  readonly durable = true;
  readonly #store: SqlStore<unknown>;
  readonly #db: Kysely<EventTables>;
  readonly #appender: BatchingAppender;
  readonly #ownsStore: boolean;
  #closing: Promise<void> | undefined;

  constructor(store: SqlStore<unknown>, options: SqliteEventStoreOptions = {}) {
    if (store.dialect !== "sqlite")
      throw new Error(`SqliteEventStore needs a sqlite store, got ${store.dialect}`);
    this.#store = store;
    this.#db = store.db as Kysely<EventTables>;
    this.#ownsStore = options.ownsStore ?? false;
    this.#appender = new BatchingAppender((batch, attempt) => this.#writeBatch(batch, attempt), options);
  }

  append(streamId: string, events: readonly DomainEvent[]): void {
    this.#appender.append(streamId, events);
  }

  flush(): Promise<void> {
    return this.#appender.flush();
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return selectStream(this.#db, streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    return selectAll(this.#db, options);
  }

  /** Flushes (see `GroupCommitOptions.closeTimeoutMs`), then closes the SqlStore if it owns it. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      await this.#appender.close();
    } finally {
      if (this.#ownsStore) await this.#store.close();
    }
  }

  #writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void> {
    // One connection for the whole transaction; Kysely's SQLite driver lends it to nobody else meanwhile.
    return this.#db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        await insertBatch(conn, "sqlite", batch, attempt);
        await sql`commit`.execute(conn);
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw error;
      }
    });
  }
}

/** Opens (creating and migrating) a SQLite file for the event store alone; `close()` closes the file. */
export async function openSqliteEventStore(
  options: { path: string } & Omit<SqliteEventStoreOptions, "ownsStore">,
): Promise<SqliteEventStore> {
  const { path, ...rest } = options;
  const store = await openSqlite<unknown>({ path });
  return new SqliteEventStore(store, { ...rest, ownsStore: true });
}
