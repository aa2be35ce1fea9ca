import { MemoryEventStore } from "../adapters/store/memory/memory-event-store.js";
import { memoryRepositories } from "../adapters/store/memory/memory-repositories.js";
import { sqlRepositories } from "../adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../adapters/store/sql-store.js";
import { openSqlite } from "../adapters/store/sqlite/open-sqlite.js";
import { SqliteEventStore } from "../adapters/store/sqlite/sqlite-event-store.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { StoreAvailabilityTracker } from "../app/persistence/store-availability-tracker.js";
import type { EventStore } from "../app/ports/event-store.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreAvailability } from "../app/ports/store-availability.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { GatewayConfig } from "../config/schema.js";

/** What the gateway persists to, opened and migrated. */
export interface Storage {
  readonly eventStore: EventStore;
  readonly repositories: StoreRepositories;
  /** `sqlite <path>`, `postgresql db@host` or `memory`: for logs, never a password. */
  readonly description: string;
  /** Set when a durable store could not open and memory was used instead (`/health/ready` is 503). */
  readonly degraded: { reason: string } | null;
  /**
   * Whether the shared database is reachable (PostgreSQL only: a SQLite file is local, and its
   * failures are the disk's, which no probe cures). Absent: nothing to track.
   */
  readonly availability?: StoreAvailability;
  close(): Promise<void>;
}

/**
 * While the database is unreachable it is probed this often, so `/health/ready` and the log see it
 * return within a second even with no traffic; one `select 1` a second costs nothing.
 */
const PROBE_INTERVAL_MS = 1_000;

/**
 * Opens the backend of `persistence.backend` (one SQLite file, `persistence.sqlite.path`, by default
 * the event store's `event_store.path`; or PostgreSQL with the `persistence.postgresql` settings
 * passed to the driver) and the event store of `event_store.driver` on it. A durable store that
 * cannot open refuses the start (throws) unless `event_store.allow_memory_fallback`, in which case
 * everything runs in memory and `degraded` says why.
 */
export async function openStorage(config: GatewayConfig, logger: Logger): Promise<Storage> {
  const onError = (error: unknown, failure: { attempt: number; events: number }) =>
    logger.error({ err: String(error), ...failure }, "event store batch failed; retrying");
  let sql: SqlStore<unknown>;
  let tracker: StoreAvailabilityTracker | undefined;
  try {
    ({ sql, tracker } = await openBackend(config, logger));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!config.event_store.allow_memory_fallback) throw new Error(`storage: ${reason}`);
    logger.error(
      { reason },
      "durable storage unavailable; running in memory (event_store.allow_memory_fallback)",
    );
    return memoryStorage({ reason });
  }
  const repositories = sqlRepositories(sql);
  const eventStore: EventStore =
    config.event_store.driver === "memory" || !config.event_store.enabled
      ? new MemoryEventStore({ onError })
      : sql.dialect === "sqlite"
        ? new SqliteEventStore(sql, { onError })
        : new (await import("../adapters/store/postgres/postgres-event-store.js")).PostgresEventStore(sql, {
            onError,
          });
  // Once the database answers again, a batch in its backoff is written at once: until it commits,
  // calls that must wait for their events are refused (fail-fast), so recovery waits on it.
  tracker?.onReachable(() => eventStore.retryNow());
  return {
    eventStore,
    repositories,
    description: sql.description,
    degraded: null,
    ...(tracker && { availability: tracker }),
    async close() {
      await eventStore.close();
      tracker?.close();
      await sql.close();
    },
  };
}

async function openBackend(
  config: GatewayConfig,
  logger: Logger,
): Promise<{ sql: SqlStore<unknown>; tracker?: StoreAvailabilityTracker }> {
  if (config.persistence.backend === "postgresql") {
    // The pg driver loads only when PostgreSQL is the backend.
    const { openPostgres, describePostgres } = await import("../adapters/store/postgres/open-postgres.js");
    const connection = { ...(config.persistence.postgresql ?? {}) };
    // Built before the pool so that it hears every query; it probes through the pool once open.
    let ping: () => Promise<void> = () => Promise.reject(new Error("not open"));
    const tracker = new StoreAvailabilityTracker({
      clock: new SystemClock(),
      logger,
      description: describePostgres(connection),
      probe: () => ping(),
      probeIntervalMs: PROBE_INTERVAL_MS,
    });
    const sql = await openPostgres({ connection, outcomes: tracker });
    ping = () => sql.ping();
    return { sql, tracker };
  }
  return { sql: await openSqlite({ path: config.persistence.sqlite?.path ?? config.event_store.path }) };
}

export function memoryStorage(degraded: { reason: string } | null = null): Storage {
  const eventStore = new MemoryEventStore();
  return {
    eventStore,
    repositories: memoryRepositories(),
    description: "memory",
    degraded,
    close: () => eventStore.close(),
  };
}
