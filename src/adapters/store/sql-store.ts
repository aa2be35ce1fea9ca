import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type Database from "better-sqlite3";
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";

export type SqlDialectName = "sqlite" | "postgres";

/**
 * An open SQL database with its migrations applied. Every repository of a backend is built on one
 * of these; the same table names and column types exist in both dialects (times are epoch
 * seconds as floating point, JSON is text, positions and versions are integers).
 */
export interface SqlStore<DB = unknown> {
  readonly db: Kysely<DB>;
  readonly dialect: SqlDialectName;
  /** A short description for logs (`sqlite data/events.db`, `postgresql db@host`), never a password. */
  readonly description: string;
  /**
   * SQLite only: the connection under `db`, for statements run without Kysely (the event store's
   * batch writes). Use it only while holding Kysely's connection (`db.connection().execute`).
   */
  readonly sqlite?: Database.Database;
  close(): Promise<void>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The migrations of one dialect live in its own folder: `sqlite/migrations`, `postgres/migrations`. */
export function migrationFolder(dialect: SqlDialectName): string {
  return path.join(HERE, dialect, "migrations");
}

/**
 * Reads the migration files of a folder (`.js` when built, `.ts` under the test runner) in name
 * order. Kysely's own FileMigrationProvider imports from inside node_modules, where the test
 * runner's TypeScript loader does not apply; importing from here works in both.
 */
class FolderMigrationProvider implements MigrationProvider {
  constructor(private readonly folder: string) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(this.folder))
      .filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith(".d.ts"))
      .sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(path.join(this.folder, file)).href)) as Partial<Migration>;
      if (typeof module.up !== "function") throw new Error(`migration ${file} exports no up()`);
      migrations[file.replace(/\.(js|ts)$/, "")] = module as Migration;
    }
    return migrations;
  }
}

/**
 * Applies every pending migration of the dialect, in file-name order. Throws an Error naming the
 * failed migration; a failed migration leaves the database as it was (each runs in a transaction
 * where the dialect allows it).
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(db, dialect);
    } catch (error) {
      // Kysely reads the catalogue of every schema before migrating; on PostgreSQL that read can fail
      // while another connection creates or drops a schema at the same moment (replicas starting
      // together, parallel test runs). Nothing was applied then, so trying again is safe.
      if (!(error instanceof BeforeAnyMigration) || attempt >= MIGRATION_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_RETRY_MS * attempt));
    }
  }
}

/** Attempts of a migration run that failed before applying anything, and the pause between them. */
const MIGRATION_ATTEMPTS = 4;
const MIGRATION_RETRY_MS = 150;

class BeforeAnyMigration extends Error {}

async function migrateOnce(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  // On PostgreSQL the bookkeeping tables live in the connection's current schema: Kysely would
  // otherwise take same-named tables of any other schema (another replica set, a test) for its own.
  const schema =
    dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: new FolderMigrationProvider(migrationFolder(dialect)),
    ...(schema && { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    if (!failed) throw new BeforeAnyMigration(`database migrations could not start: ${reason}`);
    throw new Error(`database migration ${failed} failed: ${reason}`);
  }
}
