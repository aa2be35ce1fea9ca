/** One bucket of a cumulative histogram: how many observations were at most `le`. */
export interface CumulativeBucket {
  /** Upper bound, inclusive; the last bucket's is `Infinity`. */
  readonly le: number;
  readonly count: number;
}

/**
 * The `q`-quantile (0 <= q <= 1) of a cumulative histogram, estimated as Prometheus'
 * `histogram_quantile` does: find the bucket holding rank `q * total` and interpolate linearly
 * between its lower bound (the previous bucket's upper bound, 0 for the first) and its upper bound.
 * A rank that falls in the last (`+Inf`) bucket answers the highest finite bound, the best known
 * lower limit. Null when the histogram holds no observation.
 *
 * Buckets are sorted by `le`, the last one `Infinity` (its count is the total). The answer is an
 * estimate whose precision is the width of the bucket it falls in.
 */
export function histogramQuantile(q: number, buckets: readonly CumulativeBucket[]): number | null {
  const total = buckets.at(-1)?.count ?? 0;
  if (total <= 0) return null;
  const rank = Math.min(1, Math.max(0, q)) * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const bucket of buckets) {
    if (bucket.count >= rank && bucket.count > lowerCount) {
      if (!Number.isFinite(bucket.le)) return lowerBound;
      const share = (rank - lowerCount) / (bucket.count - lowerCount);
      return lowerBound + (bucket.le - lowerBound) * share;
    }
    lowerBound = Number.isFinite(bucket.le) ? bucket.le : lowerBound;
    lowerCount = bucket.count;
  }
  return lowerBound;
}

/** Bucket-wise sum of cumulative histograms of the same bounds (`[]` for none). */
export function addBuckets(...histograms: readonly (readonly CumulativeBucket[])[]): CumulativeBucket[] {
  const [first, ...rest] = histograms;
  if (!first) return [];
  return first.map((bucket, index) => ({
    le: bucket.le,
    count: rest.reduce((sum, other) => sum + (other[index]?.count ?? 0), bucket.count),
  }));
}

/**
 * What a cumulative histogram gained since an earlier reading of it (same bounds): the histogram of
 * the observations made in between. No reading (`undefined`) counts as empty. A count that went
 * down (never, for a counter that only grows) reads as no observation.
 */
export function subtractBuckets(
  now: readonly CumulativeBucket[],
  before: readonly CumulativeBucket[] | undefined,
): CumulativeBucket[] {
  return now.map((bucket, index) => ({
    le: bucket.le,
    count: Math.max(0, bucket.count - (before?.[index]?.count ?? 0)),
  }));
}
