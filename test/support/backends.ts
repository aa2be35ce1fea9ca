import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe } from "vitest";
import { memoryRepositories } from "../../src/adapters/store/memory/memory-repositories.js";
import { openPostgres } from "../../src/adapters/store/postgres/open-postgres.js";
import { PostgresEventStore } from "../../src/adapters/store/postgres/postgres-event-store.js";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { openSqlite } from "../../src/adapters/store/sqlite/open-sqlite.js";
import type { StoreRepositories } from "../../src/app/ports/store-repositories.js";
import type { Storage } from "../../src/composition/open-storage.js";
import { TcpProxy } from "./tcp-proxy.js";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

let postgresReachable: Promise<boolean> | undefined;

/** Whether PostgreSQL answers at DATABASE_URL (checked once per test file). */
export function postgresAvailable(): Promise<boolean> {
  postgresReachable ??= (async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      await client.query("select 1");
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return postgresReachable;
}

/**
 * Runs one statement on a connection of its own to DATABASE_URL, closed whatever the outcome: what
 * a test does beside the store it tests (create or drop a schema, read rows back, break a table).
 */
export async function adminQuery(statement: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Where the PostgreSQL server of DATABASE_URL listens. */
function postgresServer(): { host: string; port: number } {
  const url = new URL(DATABASE_URL);
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** A TCP proxy on loopback in front of the PostgreSQL server of DATABASE_URL (see {@link TcpProxy}). */
export function postgresProxy(): Promise<TcpProxy> {
  return TcpProxy.start(postgresServer());
}

/** Driver settings of PostgreSQL, as a gateway's `persistence.postgresql` takes them. */
export interface PostgresSettings {
  host: string;
  port: number;
  user?: string;
  password?: string;
  database: string;
  options?: string;
}

/**
 * DATABASE_URL as driver settings for a gateway's configuration: `schema` becomes the search path
 * of every connection of the pool (through the driver's `options`), `database` replaces the URL's,
 * and with `proxy` the server is reached through that proxy instead.
 */
export function postgresSettings(
  choice: { schema?: string; database?: string; proxy?: TcpProxy } = {},
): PostgresSettings {
  const url = new URL(DATABASE_URL);
  return {
    ...(choice.proxy ? { host: "127.0.0.1", port: choice.proxy.port } : postgresServer()),
    ...(url.username && { user: decodeURIComponent(url.username) }),
    ...(url.password && { password: decodeURIComponent(url.password) }),
    database: choice.database ?? decodeURIComponent(url.pathname.slice(1)),
    ...(choice.schema && { options: `-c search_path=${choice.schema}` }),
  };
}

/** A fresh SQLite database in its own temporary folder. */
export async function freshSqlite<DB>(): Promise<SqlStore<DB> & { path: string }> {
  const path = join(mkdtempSync(join(tmpdir(), "airlock-sqlite-")), "store.db");
  return { ...(await openSqlite<DB>({ path })), path };
}

/** A fresh PostgreSQL schema (dropped on close). */
export async function freshPostgres<DB>(): Promise<SqlStore<DB> & { schema: string }> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const dropSchema = () => adminQuery(`drop schema if exists ${schema} cascade`);
  let store: SqlStore<DB>;
  try {
    store = await openPostgres<DB>({
      connection: { connectionString: DATABASE_URL },
      schema,
      maxConnections: 4,
    });
  } catch (error) {
    await dropSchema().catch(() => undefined);
    throw error;
  }
  return {
    ...store,
    schema,
    async close() {
      await store.close();
      await dropSchema();
    },
  };
}

/**
 * `describe` for PostgreSQL suites: skipped when the server is not reachable, except under
 * `CI=true`, where the suite runs and fails (CI must never pass by skipping).
 */
export async function describePostgres(name: string, body: () => void): Promise<void> {
  const available = await postgresAvailable();
  if (!available && process.env.CI !== "true") {
    describe.skip(`${name} (PostgreSQL not reachable at ${DATABASE_URL})`, body);
    return;
  }
  describe(name, body);
}

export type BackendName = "memory" | "sqlite" | "postgres";
export const BACKENDS: readonly BackendName[] = ["memory", "sqlite", "postgres"];

/** Every repository of a fresh store of one backend, and how to close it. */
export async function openRepositories(
  backend: BackendName,
): Promise<{ repos: StoreRepositories; close(): Promise<void> }> {
  if (backend === "memory") return { repos: memoryRepositories(), close: async () => undefined };
  const store = backend === "sqlite" ? await freshSqlite() : await freshPostgres();
  return { repos: sqlRepositories(store), close: () => store.close() };
}

/**
 * The contract suite of one port on every backend: `body` runs as `<port> on <backend>`, each test
 * on a fresh store (PostgreSQL as {@link describePostgres} says); `repos()` answers the current
 * test's repositories.
 */
export async function describeEachBackend(
  port: string,
  body: (repos: () => StoreRepositories, backend: BackendName) => void,
): Promise<void> {
  for (const backend of BACKENDS) {
    await (backend === "postgres" ? describePostgres : describeNow)(`${port} on ${backend}`, () => {
      let open: { repos: StoreRepositories; close(): Promise<void> } | undefined;
      beforeEach(async () => {
        open = await openRepositories(backend);
      });
      afterEach(async () => {
        await open?.close();
        open = undefined;
      });
      body(() => {
        if (!open) throw new Error("repositories are open only inside a test");
        return open.repos;
      }, backend);
    });
  }
}

/** `describe` that awaits like {@link describePostgres}, for the backends that always run. */
export async function describeNow(name: string, body: () => void): Promise<void> {
  describe(name, body);
}

/**
 * A gateway's storage on an open PostgreSQL store shared with other replicas of the test: the
 * shared event log and every repository. Closing it closes only the event store; the test closes
 * the database (the first store drops the schema, so it closes last).
 */
export function sharedPostgresStorage(sql: SqlStore<unknown>): Storage {
  const eventStore = new PostgresEventStore(sql);
  return {
    eventStore,
    repositories: sqlRepositories(sql),
    description: sql.description,
    degraded: null,
    close: () => eventStore.close(),
  };
}
