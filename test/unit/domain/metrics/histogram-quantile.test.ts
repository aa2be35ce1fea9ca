import { describe, expect, it } from "vitest";
import {
  addBuckets,
  type CumulativeBucket,
  histogramQuantile,
  subtractBuckets,
} from "../../../../src/domain/metrics/histogram-quantile.js";

const INF = Number.POSITIVE_INFINITY;
/** Cumulative buckets from upper bounds and the count each bucket adds. */
const histogram = (...pairs: [le: number, added: number][]): CumulativeBucket[] => {
  let total = 0;
  return pairs.map(([le, added]) => {
    total += added;
    return { le, count: total };
  });
};

describe("histogramQuantile", () => {
  it("answers null for a histogram without observations", () => {
    expect(histogramQuantile(0.5, histogram([10, 0], [INF, 0]))).toBeNull();
    expect(histogramQuantile(0.5, [])).toBeNull();
  });

  it("interpolates linearly inside the bucket holding the rank, the first bucket starting at 0", () => {
    // 4 observations in (0, 10], 4 in (10, 20]: the median is the top of the first bucket.
    const buckets = histogram([10, 4], [20, 4], [INF, 0]);
    expect(histogramQuantile(0.5, buckets)).toBe(10);
    expect(histogramQuantile(0.25, buckets)).toBe(5);
    expect(histogramQuantile(0.75, buckets)).toBe(15);
    expect(histogramQuantile(1, buckets)).toBe(20);
  });

  it("skips empty buckets and answers the highest finite bound for a rank in +Inf", () => {
    const buckets = histogram([5, 0], [10, 0], [50, 2], [INF, 2]);
    expect(histogramQuantile(0.25, buckets)).toBe(30);
    expect(histogramQuantile(0.99, buckets)).toBe(50);
  });

  it("keeps p50 <= p95 <= p99 on a skewed histogram", () => {
    const buckets = histogram([5, 90], [25, 5], [100, 3], [1000, 2], [INF, 0]);
    const [p50, p95, p99] = [0.5, 0.95, 0.99].map((q) => histogramQuantile(q, buckets) as number);
    expect(p50).toBeLessThan(5);
    expect(p95).toBe(25);
    expect(p99).toBeGreaterThan(100);
    expect(p99).toBeLessThanOrEqual(1000);
  });
});

describe("bucket arithmetic", () => {
  it("adds histograms bucket by bucket", () => {
    expect(addBuckets(histogram([10, 1], [INF, 1]), histogram([10, 2], [INF, 0]))).toEqual(
      histogram([10, 3], [INF, 1]),
    );
    expect(addBuckets()).toEqual([]);
  });

  it("subtracts an earlier reading, none counting as empty and a drop as no observation", () => {
    const now = histogram([10, 3], [INF, 2]);
    expect(subtractBuckets(now, histogram([10, 1], [INF, 1]))).toEqual(histogram([10, 2], [INF, 1]));
    expect(subtractBuckets(now, undefined)).toEqual(now);
    expect(subtractBuckets(histogram([10, 1], [INF, 0]), histogram([10, 2], [INF, 0]))).toEqual(
      histogram([10, 0], [INF, 0]),
    );
  });
});
