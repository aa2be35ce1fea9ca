import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { migrateToLatest, type SqlStore } from "../sql-store.js";

/** int8 (bigint) columns hold positions and versions, far below 2^53: read them as numbers. */
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export interface PostgresOptions {
  /** Passed to `pg.Pool` as they are: host, port, user, password, database, connectionString, ssl, ... */
  connection: pg.PoolConfig;
  /** A schema to create and use (tests give each run its own); default: the server's search_path. */
  schema?: string;
  /** Pool size; a replica needs few connections since appends are batched. */
  maxConnections?: number;
}

const DEFAULT_POOL_SIZE = 10;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Opens a pool to PostgreSQL, checks it answers, and migrates. Rejects with a message naming the server. */
export async function openPostgres<DB>(options: PostgresOptions): Promise<SqlStore<DB>> {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name '${schema}'`);
  const pool = new pg.Pool({
    max: options.maxConnections ?? DEFAULT_POOL_SIZE,
    ...options.connection,
    ...(schema && { options: `-c search_path=${schema}` }),
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  const description = describe(options.connection);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    await migrateToLatest(db as Kysely<unknown>, "postgres");
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw new Error(`cannot open ${description}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { db, dialect: "postgres", description, close: () => db.destroy() };
}

function describe(connection: pg.PoolConfig): string {
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
