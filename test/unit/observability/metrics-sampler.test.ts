import pino from "pino";
import { describe, expect, it } from "vitest";
import { PromGatewayMetrics } from "../../../src/adapters/observability/metrics.js";
import { MemoryMetricHistory } from "../../../src/adapters/store/memory/memory-metric-history.js";
import type { ToolCallSample } from "../../../src/app/ports/gateway-metrics.js";
import type { MetricHistory, MetricSample } from "../../../src/app/ports/metric-history.js";
import { MetricSampler, SAMPLED_METRICS } from "../../../src/control/metrics-sampler.js";
import { ManualClock } from "../../support/fleet.js";

const INTERVAL_MS = 15_000;
const RETENTION_MS = 3_600_000;

function call(mcp_server: string, status: ToolCallSample["status"], duration_ms: number): ToolCallSample {
  return {
    mcp_server,
    tool: "add",
    status,
    duration_ms,
    error_type: status === "success" ? null : status === "denied" ? "AccessDenied" : "ToolTimeout",
  };
}

function harness(history: MetricHistory = new MemoryMetricHistory()) {
  const metrics = new PromGatewayMetrics({ servers: () => [], groups: () => [] }, { processMetrics: false });
  const clock = new ManualClock();
  const sampler = new MetricSampler({
    metrics,
    history,
    clock,
    logger: pino({ level: "silent" }),
    replica: "r1",
    intervalMs: INTERVAL_MS,
    retentionMs: RETENTION_MS,
  });
  /** Advances the clock one interval and ticks; answers the tick's time in epoch seconds. */
  const tick = async () => {
    clock.advance(INTERVAL_MS);
    await sampler.tick();
    return clock.now() / 1000;
  };
  return { metrics, history, clock, sampler, tick };
}

/** `[recorded_at, value]` of one metric of one server, oldest first. */
async function points(history: MetricHistory, name: string, server: string): Promise<[number, number][]> {
  const samples: MetricSample[] = await history.query({ name, since: 0 });
  return samples.filter((s) => s.labels.mcp_server === server).map((s) => [s.recorded_at, s.value]);
}

describe("PromGatewayMetrics.callTotals", () => {
  it("reads calls by status per server back from the registry, latency only of the calls that ran", async () => {
    const { metrics } = harness();
    metrics.observeToolCall(call("math", "success", 3));
    metrics.observeToolCall(call("math", "success", 40));
    metrics.observeToolCall(call("math", "failure", 400));
    metrics.observeToolCall(call("math", "denied", 1));
    metrics.observeToolCall(call("pool", "denied", 1));
    const totals = await metrics.callTotals();
    const math = totals.find((t) => t.mcp_server === "math");
    expect(math).toMatchObject({ success: 2, failure: 1, denied: 1 });
    const count = (le: number) => math?.latency_ms.find((b) => b.le === le)?.count;
    expect(count(5)).toBe(1);
    expect(count(50)).toBe(2);
    expect(count(500)).toBe(3);
    expect(math?.latency_ms.at(-1)).toEqual({ le: Number.POSITIVE_INFINITY, count: 3 });
    const pool = totals.find((t) => t.mcp_server === "pool");
    expect(pool).toMatchObject({ success: 0, failure: 0, denied: 1 });
    expect(pool?.latency_ms.at(-1)?.count).toBe(0);
  });
});

describe("MetricSampler", () => {
  it("records each interval's calls, errors and latency percentiles labelled by server and replica", async () => {
    const { metrics, history, tick } = harness();
    for (const ms of [10, 20, 30]) metrics.observeToolCall(call("math", "success", ms));
    metrics.observeToolCall(call("math", "failure", 200));
    metrics.observeToolCall(call("math", "denied", 1));
    const first = await tick();
    metrics.observeToolCall(call("math", "success", 2));
    const second = await tick();

    expect(await points(history, SAMPLED_METRICS.calls, "math")).toEqual([
      [first, 5],
      [second, 1],
    ]);
    expect(await points(history, SAMPLED_METRICS.errors, "math")).toEqual([
      [first, 2],
      [second, 0],
    ]);
    const p50 = await points(history, SAMPLED_METRICS.p50, "math");
    const p99 = await points(history, SAMPLED_METRICS.p99, "math");
    // First interval: 4 calls ran (10, 20, 30 and 200 ms), the denied one did not.
    expect(p50[0]?.[1]).toBeGreaterThan(10);
    expect(p50[0]?.[1]).toBeLessThanOrEqual(25);
    expect(p99[0]?.[1]).toBeGreaterThan(100);
    expect(p99[0]?.[1]).toBeLessThanOrEqual(250);
    // Second interval: one 2 ms call only.
    expect(p50[1]?.[0]).toBe(second);
    expect(p50[1]?.[1]).toBeLessThanOrEqual(5);
    const labels = (await history.query({ since: 0 })).map((s) => s.labels);
    expect(new Set(labels.map((l) => JSON.stringify(l)))).toEqual(
      new Set([JSON.stringify({ mcp_server: "math", replica: "r1" })]),
    );
  });

  it("writes nothing for an idle server, and a zero just before and just after a run of activity", async () => {
    const { metrics, history, tick } = harness();
    metrics.observeToolCall(call("math", "success", 5));
    const busy = await tick();
    const after = await tick(); // idle: the trailing zero
    await tick(); // idle: nothing
    const before = await tick(); // idle: nothing yet, the leading zero comes with the next calls
    metrics.observeToolCall(call("math", "success", 5));
    metrics.observeToolCall(call("math", "success", 5));
    const again = await tick();
    expect(await points(history, SAMPLED_METRICS.calls, "math")).toEqual([
      [busy, 1],
      [after, 0],
      [before, 0],
      [again, 2],
    ]);
    expect((await points(history, SAMPLED_METRICS.p50, "math")).map(([t]) => t)).toEqual([busy, again]);
  });

  it("writes no sample at all while no call was made", async () => {
    const { history, tick } = harness();
    await tick();
    await tick();
    expect(await history.query({ since: 0 })).toEqual([]);
  });

  it("prunes samples older than the retention at each tick", async () => {
    const { metrics, history, clock, tick } = harness();
    metrics.observeToolCall(call("math", "success", 5));
    const old = await tick();
    clock.advance(RETENTION_MS);
    metrics.observeToolCall(call("math", "success", 5));
    const recent = await tick();
    const times = (await history.query({ since: 0 })).map((s) => s.recorded_at);
    expect(times).not.toContain(old);
    expect(times).toContain(recent);
  });

  it("loses an interval it could not write, and never counts its calls again in the next one", async () => {
    const store = new MemoryMetricHistory();
    let failing = true;
    const flaky: MetricHistory = {
      append: (samples) => (failing ? Promise.reject(new Error("store down")) : store.append(samples)),
      query: (query) => store.query(query),
      prune: (olderThan) => store.prune(olderThan),
    };
    const { metrics, history, tick } = harness(flaky);
    metrics.observeToolCall(call("math", "success", 5));
    metrics.observeToolCall(call("math", "success", 5));
    await expect(tick()).rejects.toThrow("store down");
    failing = false;
    metrics.observeToolCall(call("math", "success", 5));
    const next = await tick();
    expect(await points(history, SAMPLED_METRICS.calls, "math")).toEqual([[next, 1]]);
  });
});
