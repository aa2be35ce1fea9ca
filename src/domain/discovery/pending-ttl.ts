/**
 * How long a discovered server that is not registered (pending, or quarantined) is remembered
 * without being seen again. A successful scan that no longer reports it forgets it at once; the TTL
 * covers a source whose scans fail, so entries of a broken source do not linger for ever.
 */

/** Three refresh intervals: an entry survives two missed cycles and is dropped on the third. */
export const TTL_CYCLES = 3;

export function entryTtlSeconds(refreshIntervalS: number): number {
  return TTL_CYCLES * refreshIntervalS;
}

/** Whole seconds left before an entry last seen at `lastSeenMs` expires; never negative. */
export function remainingTtlSeconds(lastSeenMs: number, nowMs: number, ttlSeconds: number): number {
  return Math.max(0, Math.floor((lastSeenMs + ttlSeconds * 1000 - nowMs) / 1000));
}

export function isExpired(lastSeenMs: number, nowMs: number, ttlSeconds: number): boolean {
  return nowMs - lastSeenMs >= ttlSeconds * 1000;
}
