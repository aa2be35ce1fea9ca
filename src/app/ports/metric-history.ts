/** One sample of a metric. `recorded_at` is epoch seconds, fractional. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly recorded_at: number;
}

export interface MetricQuery {
  /** Only this metric; absent means every metric. */
  name?: string;
  /** Earliest `recorded_at` returned (inclusive). */
  since: number;
  /**
   * At most this many samples (the oldest ones, or the newest with `newestFirst`), clamped to
   * 1-100,000; default 10,000.
   */
  limit?: number;
  /**
   * Newest first (ties in reverse order of appending), so that a `limit` keeps the most recent
   * samples of a window holding more; default false, oldest first.
   */
  newestFirst?: boolean;
}

/**
 * Metric history for the `/observability/metrics/history` view.
 *
 * Guaranteed: `query` is ordered by `recorded_at`, oldest first (ties in order of appending), or
 * exactly the reverse with `newestFirst`;
 * `append` of several samples is atomic; `prune` removes exactly the samples recorded before
 * `olderThan`; `append` rejects a batch holding a value that is not finite (`NaN`, infinities) and
 * stores none of it. Not guaranteed: retention without `prune` (the caller prunes on a schedule).
 */
export interface MetricHistory {
  append(samples: readonly MetricSample[]): Promise<void>;
  query(query: MetricQuery): Promise<MetricSample[]>;
  /** Removes samples with `recorded_at < olderThan`; answers how many. */
  prune(olderThan: number): Promise<number>;
}
