import { sql } from "kysely";
import type { AppendGroup } from "../batching-appender.js";
import { insertBatch } from "../event-table.js";
import { SqlEventStore, type SqlEventStoreOptions } from "../sql-event-store.js";
import type { SqlStore } from "../sql-store.js";
import { openPostgres, type PostgresOptions } from "./open-postgres.js";

export type PostgresEventStoreOptions = SqlEventStoreOptions;

/**
 * First key of the advisory lock that serializes appenders ("ARLK"); the second is the `events`
 * table's oid, so each schema (each deployment, each test) has its own lock and the pair cannot
 * collide with single-key advisory locks taken by anything else.
 */
const APPEND_LOCK_CLASS = 0x41524c4b;

/**
 * The event store on PostgreSQL, shared by every replica (see docs/event-store.md). Each batch is
 * one READ COMMITTED transaction that first takes `pg_advisory_xact_lock(class, oid of events)`,
 * then reads `max(position)` and the streams' versions and inserts. The lock is held until
 * commit, so appenders of every replica take turns: the next one's statements see the previous
 * commit (READ COMMITTED takes a snapshot per statement, after the lock was granted), positions
 * are gap-free and increase in commit order, and a reader tailing `readAll` never sees position
 * n+1 before n. A sequence could not promise that: it hands out numbers before commit and loses
 * those of rolled-back transactions.
 */
export class PostgresEventStore extends SqlEventStore {
  constructor(store: SqlStore<unknown>, options: PostgresEventStoreOptions = {}) {
    super("postgres", store, options);
  }

  protected writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void> {
    // READ COMMITTED explicitly: under REPEATABLE READ the snapshot would predate the lock wait
    // and miss the previous holder's rows, whatever the server's default isolation is.
    return this.db
      .transaction()
      .setIsolationLevel("read committed")
      .execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${sql.lit(APPEND_LOCK_CLASS)}, 'events'::regclass::oid::int4)`.execute(
          trx,
        );
        await insertBatch(trx, batch, attempt);
      });
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
