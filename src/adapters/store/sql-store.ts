import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FileMigrationProvider, type Kysely, Migrator } from "kysely";

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
  close(): Promise<void>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The migrations of one dialect live in its own folder: `sqlite/migrations`, `postgres/migrations`. */
export function migrationFolder(dialect: SqlDialectName): string {
  return path.join(HERE, dialect, "migrations");
}

/**
 * Applies every pending migration of the dialect, in file-name order. Throws an Error naming the
 * failed migration; a failed migration leaves the database as it was (each runs in a transaction
 * where the dialect allows it).
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialectName): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: migrationFolder(dialect) }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
