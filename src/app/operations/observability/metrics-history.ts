import { z } from "zod";
import { defineOperation } from "../../operation.js";
import type { MetricSample } from "../../ports/metric-history.js";
import { gatewayMetrics } from "../gateway-metrics.js";

/** The window asked for by default (the overview's hour) and the longest one (a day). */
export const DEFAULT_MINUTES = 60;
export const MAX_MINUTES = 1440;
/**
 * The most samples one answer carries (the store's largest page, a few MB of JSON): a longer
 * window of a busy fleet keeps its newest samples and says `truncated`.
 */
const MAX_SAMPLES = 100_000;

const MINUTES_RULE = `must be an integer from 1 to ${MAX_MINUTES}`;
const INTEGER_TEXT = /^[+-]?\d+$/;

/**
 * `minutes`: a whole number of minutes in 1-1440, given as a number or as the text of a query
 * parameter; empty or absent is the default. Anything else is refused naming the rule, never
 * clamped or read as the default: a chart of another window than the one asked for would mislead.
 */
const minutes = z.preprocess(
  (value) => {
    if (value === "") return undefined;
    return typeof value === "string" && INTEGER_TEXT.test(value) ? Number(value) : value;
  },
  z
    .number({ error: MINUTES_RULE })
    .refine((n) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_MINUTES, { error: MINUTES_RULE })
    .default(DEFAULT_MINUTES),
);

/** One series: the points of one metric for one set of labels, oldest first, `[epoch seconds, value]`. */
export interface MetricSeries {
  metric: string;
  labels: Readonly<Record<string, string>>;
  points: [number, number][];
}

/**
 * `GET /observability/metrics/history?minutes=n` (an earlier revision's route): the samples of
 * the metric history recorded in the last `minutes` by every replica sharing the store, grouped
 * into series by metric and labels (`mcp_server`, `replica`), each a list of `[t, value]` points a
 * chart draws as they are. Summing the series of one metric and server over `replica` gives the
 * fleet's figure for counts; percentiles do not add up (take the largest, or weigh by calls).
 */
export const metricsHistory = defineOperation({
  name: "metrics-history",
  kind: "query",
  summary:
    "Samples of tool calls, errors and latency percentiles over the last minutes, by server and replica.",
  permissions: gatewayMetrics.permissions,
  input: z.strictObject({ minutes }),
  async run({ repositories, clock, settings }, input) {
    const to = clock.now() / 1000;
    const from = to - input.minutes * 60;
    // Newest first, so that a window holding more than one answer keeps its most recent part.
    const newest = await repositories.metricHistory.query({
      since: from,
      limit: MAX_SAMPLES,
      newestFirst: true,
    });
    const samples = newest.reverse();
    const sampling = settings.metricsHistory;
    return {
      minutes: input.minutes,
      from,
      to,
      interval_s: sampling?.interval_s ?? null,
      retention_s: sampling?.retention_s ?? null,
      truncated: samples.length >= MAX_SAMPLES,
      replicas: [...new Set(samples.flatMap((s) => s.labels.replica ?? []))].sort(),
      series: toSeries(samples),
    };
  },
});

/** Samples (oldest first) as series, ordered by metric then labels, so answers compare stably. */
function toSeries(samples: readonly MetricSample[]): MetricSeries[] {
  const byKey = new Map<string, MetricSeries>();
  for (const sample of samples) {
    const labels = Object.fromEntries(
      Object.entries(sample.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    const key = JSON.stringify([sample.name, labels]);
    let series = byKey.get(key);
    if (!series) {
      series = { metric: sample.name, labels, points: [] };
      byKey.set(key, series);
    }
    series.points.push([sample.recorded_at, sample.value]);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, series]) => series);
}
