import type { Clock } from "../app/ports/clock.js";
import type { CallTotals, GatewayMetrics } from "../app/ports/gateway-metrics.js";
import type { Logger } from "../app/ports/logger.js";
import type { MetricHistory, MetricSample } from "../app/ports/metric-history.js";
import { histogramQuantile, subtractBuckets } from "../domain/metrics/histogram-quantile.js";
import { Periodic } from "./periodic.js";

/** The metrics the sampler writes, as named in the metric history. */
export const SAMPLED_METRICS = {
  calls: "tool_calls",
  errors: "tool_call_errors",
  p50: "tool_call_latency_p50_ms",
  p95: "tool_call_latency_p95_ms",
  p99: "tool_call_latency_p99_ms",
} as const;

const QUANTILES = [
  [SAMPLED_METRICS.p50, 0.5],
  [SAMPLED_METRICS.p95, 0.95],
  [SAMPLED_METRICS.p99, 0.99],
] as const;

export interface MetricSamplerOptions {
  metrics: GatewayMetrics;
  history: MetricHistory;
  clock: Clock;
  logger: Logger;
  /** This replica's id, the `replica` label of every sample it writes. */
  replica: string;
  intervalMs: number;
  /** Samples older than this are pruned at each tick (every replica's: they share the cutoff). */
  retentionMs: number;
}

/**
 * Records this replica's tool calls into the metric history, one tick per interval: for each
 * `mcp_server` label (a server, or a group for calls routed through one) the calls and errors
 * (failed and denied calls) of the interval, and the p50/p95/p99 latency of the calls that ran in it,
 * estimated from the duration histogram's buckets. Reads the metrics registry only (nothing on the
 * tool-call path); the first tick covers everything since the process started.
 *
 * An idle server costs no row: calls and errors are written for a server with calls in the interval,
 * plus a zero at the tick just before and just after a run of activity, so a line drawn through the
 * points rests at zero while the server is idle. Latency is written only for an interval where calls
 * ran. An interval whose samples could not be written is lost (logged), never counted twice.
 */
export class MetricSampler {
  private previous = new Map<string, CallTotals>();
  /** Labels with calls at the last tick, and those with a row at the last tick. */
  private busy = new Set<string>();
  private written = new Set<string>();
  /** Epoch seconds of the last tick; null before the first. */
  private lastTick: number | null = null;

  constructor(private readonly options: MetricSamplerOptions) {}

  /** One interval: read the totals, write what changed since the last tick, prune old samples. */
  async tick(): Promise<void> {
    const { metrics, history, clock, replica } = this.options;
    const now = clock.now() / 1000;
    const totals = await metrics.callTotals();
    const samples: MetricSample[] = [];
    const busy = new Set<string>();
    const written = new Set<string>();
    const at = (recorded_at: number, mcp_server: string, name: string, value: number) =>
      samples.push({ name, labels: { mcp_server, replica }, value, recorded_at });
    for (const current of totals) {
      const id = current.mcp_server;
      const before = this.previous.get(id);
      const calls = delta(count(current), before && count(before));
      const errors = delta(current.failure + current.denied, before && before.failure + before.denied);
      if (calls > 0) {
        busy.add(id);
        if (this.lastTick !== null && !this.written.has(id)) {
          at(this.lastTick, id, SAMPLED_METRICS.calls, 0);
          at(this.lastTick, id, SAMPLED_METRICS.errors, 0);
        }
      }
      if (calls > 0 || this.busy.has(id)) {
        written.add(id);
        at(now, id, SAMPLED_METRICS.calls, calls);
        at(now, id, SAMPLED_METRICS.errors, errors);
      }
      const ran = subtractBuckets(current.latency_ms, before?.latency_ms);
      for (const [name, q] of QUANTILES) {
        const value = histogramQuantile(q, ran);
        if (value !== null) at(now, id, name, round(value));
      }
    }
    this.previous = new Map(totals.map((entry) => [entry.mcp_server, entry]));
    this.busy = busy;
    this.written = written;
    this.lastTick = now;
    await history.append(samples);
    await history.prune(now - this.options.retentionMs / 1000);
  }

  /** The tick on its interval, never overlapping itself; a failed tick is logged and the next goes on. */
  loop(): Periodic {
    return new Periodic(
      this.options.intervalMs,
      () => this.tick(),
      (error) => this.options.logger.warn({ err: String(error) }, "metric history sample not recorded"),
    );
  }
}

function count(totals: CallTotals): number {
  return totals.success + totals.failure + totals.denied;
}

/** Growth of a counter since its last reading (none: since zero); never negative. */
function delta(now: number, before: number | undefined): number {
  return Math.max(0, now - (before ?? 0));
}

/** Latency in milliseconds to the microsecond: finer digits are noise of the interpolation. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
