import { z } from "zod";
import {
  addBuckets,
  type CumulativeBucket,
  histogramQuantile,
} from "../../../domain/metrics/histogram-quantile.js";
import { defineOperation } from "../../operation.js";
import type { CallTotals } from "../../ports/gateway-metrics.js";
import { gatewayMetrics } from "../gateway-metrics.js";
import { notConfigured } from "../unavailable.js";

/** Latency percentiles in milliseconds; null while no call has run. */
export interface LatencyPercentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** Tool calls of one server, group or the whole replica since the process started. */
export interface CallCounts {
  calls: number;
  success: number;
  failure: number;
  denied: number;
  /** Failed and denied calls (`airlock_tool_call_errors_total`). */
  errors: number;
  latency_ms: LatencyPercentiles | null;
  in_flight: number;
}

const NO_CALLS: CallTotals = { mcp_server: "", success: 0, failure: 0, denied: 0, latency_ms: [] };

/**
 * `GET /observability/metrics` (an earlier revision's route): this replica's tool-call metrics now,
 * read from its metrics registry (the counts `GET /metrics` exposes; nothing is counted apart). Per
 * server and per group: calls by outcome, errors, latency percentiles of the calls that ran and
 * calls in flight; the same for the whole replica; which replica answered. Counts run from the
 * process start; a call routed through a group counts under the group. Peers' calls are theirs:
 * ask each replica, or read the history, which holds every replica's samples.
 */
export const metricsSnapshot = defineOperation({
  name: "metrics-snapshot",
  kind: "query",
  summary:
    "This replica's tool calls, errors, latency percentiles and calls in flight, per server and group.",
  permissions: gatewayMetrics.permissions,
  input: z.strictObject({}),
  async run({ metrics, fleet, groups, instance, clock }) {
    if (!metrics) throw notConfigured("metrics");
    const totals = new Map((await metrics.callTotals()).map((entry) => [entry.mcp_server, entry]));
    const groupViews = groups.views();
    const groupIds = new Set(groupViews.map((group) => group.group_id));
    const inFlight = (id: string) => (fleet.has(id) ? fleet.require(id).inFlight : 0);

    const mcp_servers: Record<string, CallCounts & { state: string | null }> = {};
    for (const server of fleet.list()) {
      mcp_servers[server.id] = {
        state: server.lifecycle.state,
        ...counts(totals.get(server.id), server.inFlight),
      };
    }
    // Calls counted under a server no longer registered (removed, unloaded) stay visible.
    for (const [id, entry] of totals) {
      if (!fleet.has(id) && !groupIds.has(id)) mcp_servers[id] = { state: null, ...counts(entry, 0) };
    }
    const groupMetrics: Record<string, CallCounts & { state: string; circuit_open: boolean }> = {};
    for (const group of groupViews) {
      const members = groups.memberIds(group.group_id);
      groupMetrics[group.group_id] = {
        state: group.state,
        circuit_open: group.circuit_open,
        // A routed call is in flight at the member serving it.
        ...counts(
          totals.get(group.group_id),
          members.reduce((sum, id) => sum + inFlight(id), 0),
        ),
      };
    }
    const all = [...totals.values()];
    const replicaTotals = counts(
      {
        mcp_server: "",
        success: sum(all, (entry) => entry.success),
        failure: sum(all, (entry) => entry.failure),
        denied: sum(all, (entry) => entry.denied),
        latency_ms: addBuckets(...all.map((entry) => entry.latency_ms)),
      },
      sum(fleet.list(), (server) => server.inFlight),
    );
    return {
      replica: { instance_id: instance.instance_id, manages_fleet: instance.manages_fleet },
      taken_at: clock.now() / 1000,
      counted_since: instance.started_at / 1000,
      totals: replicaTotals,
      mcp_servers,
      groups: groupMetrics,
    };
  },
});

function counts(entry: CallTotals | undefined, in_flight: number): CallCounts {
  const { success, failure, denied, latency_ms } = entry ?? NO_CALLS;
  return {
    calls: success + failure + denied,
    success,
    failure,
    denied,
    errors: failure + denied,
    latency_ms: percentiles(latency_ms),
    in_flight,
  };
}

function percentiles(buckets: readonly CumulativeBucket[]): LatencyPercentiles | null {
  const p50 = histogramQuantile(0.5, buckets);
  const p95 = histogramQuantile(0.95, buckets);
  const p99 = histogramQuantile(0.99, buckets);
  if (p50 === null || p95 === null || p99 === null) return null;
  return { p50: round(p50), p95: round(p95), p99: round(p99) };
}

function sum<T>(items: readonly T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + value(item), 0);
}

/** Milliseconds to the microsecond: finer digits are noise of the interpolation. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
