import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { ensureDirectory } from "../../system/ensure-directory.js";
import { migrateToLatest, type SqlStore } from "../sql-store.js";

export interface SqliteOptions {
  /** Database file; `:memory:` for a private in-memory database. */
  path: string;
}

/** Waits this long for a lock held by another connection before failing a write. */
const BUSY_TIMEOUT_MS = 5_000;
/** Prepared statements kept per connection (the least recently used goes first). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Opens (creating folder and file when missing) a SQLite database in WAL mode and migrates it.
 * WAL lets readers proceed during writes; `synchronous=NORMAL` is durable across process crashes
 * (not power loss) and keeps commits cheap, which the batched event appends rely on. Temporary
 * structures (sorts, statement journals) stay in memory instead of files created and deleted in
 * the system's temporary folder.
 */
export async function openSqlite<DB>(options: SqliteOptions): Promise<SqlStore<DB>> {
  if (options.path !== ":memory:") ensureDirectory(dirname(options.path));
  const database = new Database(options.path);
  try {
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    database.pragma("foreign_keys = ON");
    database.pragma("temp_store = MEMORY");
  } catch (error) {
    database.close();
    throw error;
  }
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  try {
    await migrateToLatest(db as Kysely<unknown>, "sqlite");
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect: "sqlite",
    description: `sqlite ${options.path}`,
    sqlite: database,
    close: () => db.destroy(),
  };
}

/**
 * Keeps the connection's prepared statements by SQL text. Kysely asks for a statement anew for
 * every query, and preparing (parsing and planning) costs more than running the small statements
 * of the call path: the event store's `begin immediate`, `commit` and inserts. Reusing a statement
 * is safe because Kysely runs one query at a time on its single SQLite connection (a statement
 * being iterated is never asked for again before the iteration ends), and SQLite re-prepares a
 * kept statement by itself after a schema change.
 */
export function withStatementCache(
  database: Database.Database,
  size = STATEMENT_CACHE_SIZE,
): Database.Database {
  const prepare = database.prepare.bind(database);
  const statements = new Map<string, Database.Statement>();
  database.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement) {
      statements.delete(source);
    } else {
      statement = prepare(source);
      if (statements.size >= size) statements.delete(statements.keys().next().value as string);
    }
    statements.set(source, statement);
    return statement;
  }) as Database.Database["prepare"];
  return database;
}
