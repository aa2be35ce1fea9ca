import type { AppendGroup } from "../batching-appender.js";
import { SqlEventStore, type SqlEventStoreOptions } from "../sql-event-store.js";
import type { SqlStore } from "../sql-store.js";
import { openSqlite } from "./open-sqlite.js";
import { sqliteBatchWriter } from "./sqlite-batch-writer.js";

export type SqliteEventStoreOptions = SqlEventStoreOptions;

/**
 * The event store on SQLite (see docs/event-store.md). Each batch is one `BEGIN IMMEDIATE`
 * transaction written with prepared statements (see sqlite-batch-writer.ts): positions and
 * versions stay gap-free and in commit order even with several connections or processes on the
 * same file. Durable across a process crash (WAL, `synchronous=NORMAL`); not across power loss.
 */
export class SqliteEventStore extends SqlEventStore {
  readonly #write: (batch: readonly AppendGroup[], attempt: number) => void;

  constructor(store: SqlStore<unknown>, options: SqliteEventStoreOptions = {}) {
    super("sqlite", store, options);
    if (!store.sqlite) throw new Error("SqliteEventStore needs a store opened by openSqlite");
    this.#write = sqliteBatchWriter(store.sqlite);
  }

  protected writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void> {
    // Kysely's connection is held meanwhile: none of its queries (nor transactions of the
    // repositories sharing the file) runs inside this transaction.
    return this.db.connection().execute(async () => this.#write(batch, attempt));
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
