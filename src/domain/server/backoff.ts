/** Retry backoff ceiling: a dead server is retried by a tool call at most a minute after it died. */
const MAX_BACKOFF_S = 60;
/** Jitter spreads retries of servers that died together: +/-10 %. */
const JITTER_FRACTION = 0.1;

/**
 * `min(60, 2^consecutive_failures)` seconds, +/-10 % jitter (`jitter` in [-1, 1], supplied by the
 * caller so the domain stays deterministic).
 */
export function retryBackoffSeconds(consecutiveFailures: number, jitter: number): number {
  const base = Math.min(MAX_BACKOFF_S, 2 ** Math.max(0, consecutiveFailures));
  const j = Math.max(-1, Math.min(1, jitter));
  return base * (1 + j * JITTER_FRACTION);
}

/** Automatic recovery: first retry after 5 s, doubling, capped at 60 s. */
export function recoveryDelaySeconds(attempt: number): number {
  return Math.min(MAX_BACKOFF_S, 5 * 2 ** Math.max(0, attempt));
}
