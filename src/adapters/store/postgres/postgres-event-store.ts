import type { AppendGroup } from "../batching-appender.js";
import { SqlEventStore, type SqlEventStoreOptions } from "../sql-event-store.js";
import type { SqlStore } from "../sql-store.js";
import { openPostgres, type PostgresOptions } from "./open-postgres.js";
import { writePostgresBatch } from "./postgres-batch-writer.js";

export type PostgresEventStoreOptions = SqlEventStoreOptions;

/**
 * The event store on PostgreSQL, shared by every replica (see docs/event-store.md). Each batch is
 * one READ COMMITTED transaction that first takes `pg_advisory_xact_lock(class, oid of events)`,
 * then numbers and inserts its rows in one statement (postgres-batch-writer.ts). The lock is held
 * until commit, so appenders of every replica take turns: the next one's statements see the previous
 * commit (READ COMMITTED takes a snapshot per statement, after the lock was granted), positions
 * are gap-free and increase in commit order, and a reader tailing `readAll` never sees position
 * n+1 before n. A sequence could not promise that: it hands out numbers before commit and loses
 * those of rolled-back transactions.
 */
export class PostgresEventStore extends SqlEventStore {
  constructor(store: SqlStore<unknown>, options: PostgresEventStoreOptions = {}) {
    super("postgres", store, options);
  }

  protected writeBatch(batch: readonly AppendGroup[]): Promise<void> {
    // Events already stored are skipped on every attempt, so a retry needs nothing more.
    return writePostgresBatch(this.db, batch);
  }
}

/** Opens (and migrates) a pool for the event store alone; `close()` ends the pool. */
export async function openPostgresEventStore(
  options: PostgresOptions & Omit<PostgresEventStoreOptions, "ownsStore">,
): Promise<PostgresEventStore> {
  const { connection, schema, maxConnections, ...rest } = options;
  const store = await openPostgres<unknown>({
    connection,
    ...(schema !== undefined && { schema }),
    ...(maxConnections !== undefined && { maxConnections }),
  });
  return new PostgresEventStore(store, { ...rest, ownsStore: true });
}
