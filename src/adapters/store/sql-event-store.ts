import type { Kysely } from "kysely";
import type { ReadAllOptions, ReadStreamOptions, StoredEvent } from "../../app/ports/event-store.js";
import type { GroupCommitOptions } from "./batching-appender.js";
import { type EventTables, selectAll, selectStream } from "./event-table.js";
import { GroupCommitEventStore } from "./group-commit-event-store.js";
import type { SqlDialectName, SqlStore } from "./sql-store.js";

export interface SqlEventStoreOptions extends GroupCommitOptions {
  /** Close the SqlStore when the event store closes (it was opened for the event store alone). */
  ownsStore?: boolean;
}

/**
 * What both SQL event stores share beyond the group commit: reads, closing. A dialect supplies
 * only how one batch is written in one transaction (its locking differs).
 */
export abstract class SqlEventStore extends GroupCommitEventStore {
  readonly durable = true;
  protected readonly db: Kysely<EventTables>;
  readonly #store: SqlStore<unknown>;
  readonly #ownsStore: boolean;
  #closing: Promise<void> | undefined;

  protected constructor(dialect: SqlDialectName, store: SqlStore<unknown>, options: SqlEventStoreOptions) {
    if (store.dialect !== dialect) {
      throw new Error(`${new.target.name} needs a ${dialect} store, got ${store.dialect}`);
    }
    super(options);
    this.#store = store;
    this.db = store.db as Kysely<EventTables>;
    this.#ownsStore = options.ownsStore ?? false;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return selectStream(this.db, streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<StoredEvent[]> {
    return selectAll(this.db, options);
  }

  /** Flushes (see `GroupCommitOptions.closeTimeoutMs`), then closes the SqlStore if it owns it. Idempotent. */
  override close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      await super.close();
    } finally {
      if (this.#ownsStore) await this.#store.close();
    }
  }
}
