import { Kysely, sql } from "kysely";
import pg from "pg";
import type { StoreOutcomes } from "../../../app/ports/store-availability.js";
import { migrateToLatest, type SqlStore } from "../sql-store.js";
import { GuardedPostgresDialect } from "./guarded-postgres-driver.js";

/** int8 (bigint) columns hold positions and versions, far below 2^53: read them as numbers. */
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export interface PostgresOptions {
  /** Passed to `pg.Pool` as they are: host, port, user, password, database, connectionString, ssl, ... */
  connection: pg.PoolConfig;
  /** A schema to create and use (tests give each run its own); default: the server's search_path. */
  schema?: string;
  /** Pool size; a replica needs few connections since appends are batched. */
  maxConnections?: number;
  /** Told of every query's outcome: whether the database could be reached. */
  outcomes?: StoreOutcomes;
}

/** A PostgreSQL store, with the cheap round trip that tells whether the database answers. */
export interface PostgresStore<DB> extends SqlStore<DB> {
  /** Resolves when the database answers `select 1`; rejects (StoreUnavailableError) when it cannot be reached. */
  ping(): Promise<void>;
}

const DEFAULT_POOL_SIZE = 10;
/**
 * Longest wait for a connection (the TCP connect, TLS and authentication, or a free pooled
 * connection): a healthy server answers in milliseconds, a remote one within a second; past this a
 * call fails with StoreUnavailableError instead of hanging on a database that does not answer.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * TCP keepalive after this much silence on a connection, so a connection whose server vanished
 * without closing it (a host that died, a NAT that forgot it) is noticed by the kernel instead of
 * being kept forever. The kernel's probe interval and count (tcp_keepalive_intvl, _probes) follow.
 */
export const KEEPALIVE_IDLE_MS = 10_000;
/**
 * Longest wait for one statement's answer once migrations have run (they may legitimately take
 * longer): every statement the gateway sends takes milliseconds, so this only ends a query on a
 * connection that died silently mid-statement; the connection is then discarded.
 */
export const QUERY_TIMEOUT_MS = 15_000;
/**
 * An idle pooled connection is closed after this long (pg-pool's default, written down): a burst's
 * connections do not linger, and few idle connections can go stale during an outage.
 */
export const IDLE_TIMEOUT_MS = 10_000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens a pool to PostgreSQL, checks it answers, and migrates. Rejects with a message naming the
 * server. Afterwards a query that cannot reach the database rejects with StoreUnavailableError
 * (see guarded-postgres-driver.ts), and no connection error, idle or checked out, is left
 * unhandled: the pool replaces a broken connection on the next query.
 */
export async function openPostgres<DB>(options: PostgresOptions): Promise<PostgresStore<DB>> {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name '${schema}'`);
  const pool = new pg.Pool({
    max: options.maxConnections ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    ...options.connection,
    ...(schema && { options: `-c search_path=${schema}` }),
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // pg-pool listens to a client only while it is idle: the error of a checked-out client whose
  // connection drops would be emitted with nobody listening and end the process. The query in
  // flight fails on its own (and the driver discards the connection), so nothing more is needed.
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  const description = describePostgres(options.connection);
  // Armed once migrations ran: they may take long, and a refused start reports the driver's reason.
  const settings = { queryTimeoutMs: 0, guard: false };
  const db = new Kysely<DB>({
    dialect: new GuardedPostgresDialect({
      pool,
      ...(options.outcomes && { outcomes: options.outcomes }),
      settings,
    }),
  });
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    await migrateToLatest(db as Kysely<unknown>, "postgres");
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw new Error(`cannot open ${description}: ${error instanceof Error ? error.message : String(error)}`);
  }
  settings.queryTimeoutMs = QUERY_TIMEOUT_MS;
  settings.guard = true;
  return {
    db,
    dialect: "postgres",
    description,
    close: () => db.destroy(),
    async ping() {
      await sql`select 1`.execute(db);
    },
  };
}

/** `postgresql db@host` for logs and readiness, never a password. */
export function describePostgres(connection: pg.PoolConfig): string {
  if (connection.connectionString) {
    try {
      const url = new URL(connection.connectionString);
      return `postgresql ${url.pathname.slice(1)}@${url.hostname}`;
    } catch {
      return "postgresql";
    }
  }
  return `postgresql ${connection.database ?? "postgres"}@${connection.host ?? "localhost"}`;
}
