import { type RawBuilder, sql } from "kysely";
import type { SqlDialectName } from "../sql-store.js";

/**
 * Rows per multi-row INSERT. PostgreSQL allows 65,535 bind parameters per statement and SQLite
 * 32,766; at most 14 columns per row keeps a chunk far below both.
 */
const ROWS_PER_INSERT = 500;

export function chunks<T>(items: readonly T[], size = ROWS_PER_INSERT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** JSON columns are text in both dialects. */
export const toJson = (value: unknown): string => JSON.stringify(value ?? null);

export const fromJson = <T>(text: string): T => JSON.parse(text) as T;

/**
 * The database's current time in epoch seconds, fractional. PostgreSQL's `now()` is the start of
 * the transaction (each lease statement runs on its own); SQLite's `unixepoch('subsec')` has
 * millisecond resolution and is the same for every use within one statement.
 */
export function databaseNow(dialect: SqlDialectName): RawBuilder<number> {
  return dialect === "postgres"
    ? sql<number>`extract(epoch from now())::double precision`
    : sql<number>`unixepoch('subsec')`;
}

/** Limits given by callers, clamped to a range; non-integers rounded down. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}
