/**
 * A deep copy through JSON, so the memory backend hands out and keeps exactly what a SQL backend
 * would read back (no shared references, `undefined` members dropped).
 */
export const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null)) as T;

/** Limits given by callers, clamped to a range; non-integers rounded down (as the SQL backends do). */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

/** Orders strings by code unit, as SQL `order by` does under the C collation and SQLite's BINARY. */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
