import type { Kysely } from "kysely";
import type {
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  StoredEvent,
} from "../../app/ports/event-store.js";
import type { DomainEvent } from "../../domain/events.js";
import { type AppendGroup, BatchingAppender, type GroupCommitOptions } from "./batching-appender.js";
import { type EventTables, selectAll, selectStream } from "./event-table.js";
import type { SqlDialectName, SqlStore } from "./sql-store.js";

export interface SqlEventStoreOptions extends GroupCommitOptions {
  /** Close the SqlStore when the event store closes (it was opened for the event store alone). */
  ownsStore?: boolean;
}

/**
 * What both SQL event stores share: queueing and group commit, reads, closing. A dialect supplies
 * only how one batch is written in one transaction (its locking differs).
 */
export abstract class SqlEventStore implements EventStore {
  readonly durable = true;
  protected readonly db: Kysely<EventTables>;
  readonly #store: SqlStore<unknown>;
  readonly #appender: BatchingAppender;
  readonly #ownsStore: boolean;
  #closing: Promise<void> | undefined;

  protected constructor(dialect: SqlDialectName, store: SqlStore<unknown>, options: SqlEventStoreOptions) {
    if (store.dialect !== dialect) {
      throw new Error(`${new.target.name} needs a ${dialect} store, got ${store.dialect}`);
    }
    this.#store = store;
    this.db = store.db as Kysely<EventTables>;
    this.#ownsStore = options.ownsStore ?? false;
    this.#appender = new BatchingAppender((batch, attempt) => this.writeBatch(batch, attempt), options);
  }

  /** Writes one batch in one transaction, assigning positions and versions. */
  protected abstract writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void>;

  append(streamId: string, events: readonly DomainEvent[]): void {
    this.#appender.append(streamId, events);
  }

  flush(): Promise<void> {
    return this.#appender.flush();
  }

  appendMark(): number {
    return this.#appender.appendMark();
  }

  whenCommitted(mark: number): true | Promise<boolean> {
    return this.#appender.whenCommitted(mark);
  }

  get commitFailure(): { readonly retryInMs: number } | null {
    return this.#appender.commitFailure;
  }

  retryNow(): void {
    this.#appender.retryNow();
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return selectStream(this.db, streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    return selectAll(this.db, options);
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
}
