import { sql } from "kysely";
import type { AppendGroup } from "../batching-appender.js";
import { insertBatch } from "../event-table.js";
import { SqlEventStore, type SqlEventStoreOptions } from "../sql-event-store.js";
import type { SqlStore } from "../sql-store.js";
import { openSqlite } from "./open-sqlite.js";

export type SqliteEventStoreOptions = SqlEventStoreOptions;

/**
 * The event store on SQLite (see docs/event-store.md). Each batch is one `BEGIN IMMEDIATE`
 * transaction: it takes the database's write lock before reading `max(position)` and the streams'
 * versions, so positions and versions stay gap-free and in commit order even with several
 * connections or processes on the same file (a second writer waits up to the busy timeout).
 * Durable across a process crash (WAL, `synchronous=NORMAL`); not across power loss.
 */
export class SqliteEventStore extends SqlEventStore {
  constructor(store: SqlStore<unknown>, options: SqliteEventStoreOptions = {}) {
    super("sqlite", store, options);
  }

  protected writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void> {
    // One connection for the whole transaction; Kysely's SQLite driver lends it to nobody else meanwhile.
    return this.db.connection().execute(async (conn) => {
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
