// Latency statistics of one measured scenario.

/** Nearest-rank percentile (p in 0..100) of an ascending array; null when it is empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Rounds to three decimals (microseconds, when the unit is milliseconds). */
export function round3(value) {
  return value === null ? null : Math.round(value * 1000) / 1000;
}

/**
 * Summary of a scenario: `latenciesMs` holds every call (errors included), `wallMs` the time from
 * the first call's start to the last call's end.
 */
export function summarize({ latenciesMs, errors, wallMs, sessions }) {
  const sorted = Float64Array.from(latenciesMs).sort();
  const calls = sorted.length;
  const mean = calls === 0 ? null : sorted.reduce((total, value) => total + value, 0) / calls;
  return {
    sessions,
    calls,
    errors,
    wall_ms: round3(wallMs),
    calls_per_s: wallMs > 0 ? Math.round((calls / wallMs) * 1000 * 10) / 10 : null,
    latency_ms: {
      mean: round3(mean),
      p50: round3(percentile(sorted, 50)),
      p90: round3(percentile(sorted, 90)),
      p99: round3(percentile(sorted, 99)),
      max: round3(calls === 0 ? null : sorted[calls - 1]),
    },
  };
}
