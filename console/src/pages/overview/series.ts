import type { ChartSeries } from "../../components/chart.js";

/** `GET /observability/metrics/history` (docs/rest-api.md "Observability metrics"). */
export interface MetricHistory {
  minutes: number;
  from: number;
  to: number;
  /** This replica's sampling interval; null when its sampler is off. */
  interval_s: number | null;
  retention_s: number | null;
  truncated: boolean;
  replicas: string[];
  series: {
    metric: string;
    labels: { mcp_server?: string; replica?: string };
    points: [number, number][];
  }[];
}

/** The interval used when the answering replica's sampler is off (others may still sample). */
export const DEFAULT_INTERVAL_S = 15;

/**
 * One line per server for `metric`: its samples of every replica put in buckets of `interval`
 * seconds (replicas' ticks are not aligned), added up (`sum`, for counts) or the largest taken
 * (`max`, for percentiles, which do not add up); `scale` divides each bucket (a count per interval
 * becomes a rate). Servers in name order.
 */
export function perServer(
  history: MetricHistory,
  metric: string,
  combine: "sum" | "max",
  scale = 1,
): ChartSeries[] {
  const interval = history.interval_s ?? DEFAULT_INTERVAL_S;
  const byServer = new Map<string, Map<number, number>>();
  for (const series of history.series) {
    if (series.metric !== metric) continue;
    const server = series.labels.mcp_server ?? "?";
    const buckets = byServer.get(server) ?? new Map<number, number>();
    byServer.set(server, buckets);
    for (const [t, value] of series.points) {
      const bucket = Math.floor(t / interval) * interval;
      const before = buckets.get(bucket);
      buckets.set(
        bucket,
        before === undefined ? value : combine === "sum" ? before + value : Math.max(before, value),
      );
    }
  }
  return [...byServer.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, buckets]) => ({
      name,
      points: [...buckets.entries()]
        .sort(([a], [b]) => a - b)
        .map(([t, value]): [number, number] => [t, value / scale]),
    }));
}

export const PERCENTILES = [
  ["p50", "tool_call_latency_p50_ms"],
  ["p95", "tool_call_latency_p95_ms"],
  ["p99", "tool_call_latency_p99_ms"],
] as const;

/** Per server, its p50, p95 and p99 lines (the largest of the replicas' at each instant). */
export function latencyByServer(history: MetricHistory): { server: string; series: ChartSeries[] }[] {
  const servers = new Map<string, ChartSeries[]>();
  for (const [name, metric] of PERCENTILES) {
    for (const line of perServer(history, metric, "max")) {
      const lines = servers.get(line.name) ?? [];
      lines.push({ name, points: line.points });
      servers.set(line.name, lines);
    }
  }
  return [...servers.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([server, series]) => ({ server, series }));
}
