/** Wall and monotonic time. Tests pass a controllable clock; domain code never reads time itself. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Monotonic milliseconds, for durations and deadlines. */
  monotonic(): number;
}
