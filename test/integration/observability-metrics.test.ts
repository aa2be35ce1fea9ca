import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetricSampler, SAMPLED_METRICS } from "../../src/control/metrics-sampler.js";
import { createApiKey } from "../support/api-keys.js";
import { ManualClock } from "../support/fleet.js";
import { ARITHMETIC, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * `GET /api/observability/metrics` and `/metrics/history` through a gateway serving the example
 * arithmetic server, directly and through a group, called over MCP (one call refused by the
 * server's tool policy).
 */
const YAML = `
observability:
  metrics_history: {interval_s: 15, retention_h: 24}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    tools: {deny_list: [multiply]}
  calc:
    mode: group
    members: [{id: math}]
`;

interface Series {
  metric: string;
  labels: Record<string, string>;
  points: [number, number][];
}

let gw: TestGateway;
let client: Client;

/** Runs a batch of `gateway_call` calls and answers how many succeeded. */
async function callTools(calls: { mcp_server: string; tool: string; arguments: object }[]): Promise<number> {
  const { json } = await callJson(client, "gateway_call", { calls });
  return json.succeeded;
}

const add = (mcp_server: string) => ({ mcp_server, tool: "add", arguments: { a: 2, b: 3 } });

beforeAll(async () => {
  gw = await startTestGateway(YAML);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
  expect(await callTools([add("math"), add("math"), add("math")])).toBe(3);
  // Refused by the server's tool policy: a denied call, never sent to the server.
  expect(await callTools([{ mcp_server: "math", tool: "multiply", arguments: { a: 2, b: 3 } }])).toBe(0);
  expect(await callTools([add("calc"), add("calc")])).toBe(2);
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("GET /api/observability/metrics", () => {
  it("shows the calls made through the gateway per server and group, with percentiles and the replica", async () => {
    const response = await gw.app.inject({ method: "GET", url: "/api/observability/metrics" });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.replica).toEqual({
      instance_id: gw.gateway.services.instance.instance_id,
      manages_fleet: true,
    });
    expect(body.mcp_servers.math).toMatchObject({
      state: "ready",
      calls: 4,
      success: 3,
      failure: 0,
      denied: 1,
      errors: 1,
      in_flight: 0,
    });
    expect(body.groups.calc).toMatchObject({ calls: 2, success: 2, errors: 0, in_flight: 0 });
    expect(body.totals).toMatchObject({ calls: 6, success: 5, errors: 1, in_flight: 0 });
    for (const { latency_ms } of [body.mcp_servers.math, body.groups.calc, body.totals]) {
      expect(latency_ms.p50).toBeGreaterThan(0);
      expect(latency_ms.p50).toBeLessThanOrEqual(latency_ms.p95);
      expect(latency_ms.p95).toBeLessThanOrEqual(latency_ms.p99);
    }
    expect(body.taken_at).toBeGreaterThanOrEqual(body.counted_since);
  });

  it("reads the counts GET /metrics exposes: each call is counted once", async () => {
    const [snapshot, text] = await Promise.all([
      gw.app.inject({ method: "GET", url: "/api/observability/metrics" }),
      gw.app.inject({ method: "GET", url: "/metrics" }),
    ]);
    const exposed = [...text.body.matchAll(/^airlock_tool_calls_total\{mcp_server="math",[^}]*\} (\d+)$/gm)];
    const sum = exposed.reduce((total, match) => total + Number(match[1]), 0);
    expect(sum).toBe(snapshot.json().mcp_servers.math.calls);
  });
});

describe("GET /api/observability/metrics/history", () => {
  const history = async (query = "") => {
    const response = await gw.app.inject({
      method: "GET",
      url: `/api/observability/metrics/history${query}`,
    });
    expect(response.statusCode).toBe(200);
    return response.json() as { minutes: number; replicas: string[]; series: Series[]; interval_s: number };
  };
  const series = (body: { series: Series[] }, metric: string, server: string) =>
    body.series.find((s) => s.metric === metric && s.labels.mcp_server === server);

  it("answers the samples the sampler recorded within the window, and none older", async () => {
    const { metrics, repositories, instance } = gw.gateway.services;
    const clock = new ManualClock();
    const sampler = new MetricSampler({
      metrics: metrics as NonNullable<typeof metrics>,
      history: repositories.metricHistory,
      clock,
      logger: pino({ level: "silent" }),
      replica: instance.instance_id,
      intervalMs: 15_000,
      retentionMs: 24 * 3_600_000,
    });
    // A tick two hours ago takes the calls made so far; one a minute ago the two made since.
    clock.advance(Date.now() - 2 * 3_600_000 - clock.now());
    await sampler.tick();
    const early = clock.now() / 1000;
    expect(await callTools([add("math"), add("calc")])).toBe(2);
    clock.advance(2 * 3_600_000 - 60_000);
    await sampler.tick();
    const recent = clock.now() / 1000;

    const hour = await history("?minutes=60");
    expect(hour.minutes).toBe(60);
    expect(hour.interval_s).toBe(15);
    expect(hour.replicas).toEqual([instance.instance_id]);
    expect(series(hour, SAMPLED_METRICS.calls, "math")).toEqual({
      metric: SAMPLED_METRICS.calls,
      labels: { mcp_server: "math", replica: instance.instance_id },
      points: [[recent, 1]],
    });
    expect(series(hour, SAMPLED_METRICS.calls, "calc")?.points).toEqual([[recent, 1]]);
    expect(series(hour, SAMPLED_METRICS.errors, "math")?.points).toEqual([[recent, 0]]);
    expect(series(hour, SAMPLED_METRICS.p95, "math")?.points).toEqual([[recent, expect.any(Number)]]);

    const threeHours = await history("?minutes=180");
    expect(series(threeHours, SAMPLED_METRICS.calls, "math")?.points).toEqual([
      [early, 4],
      [recent, 1],
    ]);
    expect(series(threeHours, SAMPLED_METRICS.errors, "math")?.points).toEqual([
      [early, 1],
      [recent, 0],
    ]);
    // Absent, or given without a value: the last hour.
    expect((await history()).minutes).toBe(60);
    expect((await history("?minutes=")).series).toEqual(hour.series);
  });

  it.each(["0", "1441", "-5", "1.5", "1e3", "abc", "0x10"])(
    "refuses minutes=%s with 422 naming minutes, and reads nothing",
    async (minutes) => {
      const response = await gw.app.inject({
        method: "GET",
        url: `/api/observability/metrics/history?minutes=${minutes}`,
      });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: {
          code: "ValidationError",
          message: "Invalid field 'minutes': must be an integer from 1 to 1440",
          details: { issues: [{ field: "minutes", rule: "must be an integer from 1 to 1440" }] },
        },
      });
    },
  );
});

describe("permissions of the metrics routes", () => {
  let secured: TestGateway;
  beforeAll(async () => {
    secured = await startTestGateway(`
auth:
  enabled: true
  role_assignments:
    - {principal: vera, role: viewer}
    - {principal: dev, role: developer}
    - {principal: tina, role: viewer, scope: "tenant:t1"}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`);
  });
  afterAll(async () => {
    await secured?.close();
  });

  it("refuses a caller without a global metrics:read (403) and one without credentials (401), and admits a viewer", async () => {
    const keys = {
      nobody: await createApiKey(secured, "nobody"),
      dev: await createApiKey(secured, "dev"),
      // A viewer of one tenant only: the figures are the whole gateway's.
      tina: await createApiKey(secured, "tina", { tenant: "t1" }),
      vera: await createApiKey(secured, "vera"),
    };
    for (const url of ["/api/observability/metrics", "/api/observability/metrics/history?minutes=5"]) {
      const as = (key?: string) =>
        secured.app.inject({ method: "GET", url, headers: key ? { "x-api-key": key } : {} });
      expect((await as()).statusCode).toBe(401);
      for (const key of [keys.nobody, keys.dev, keys.tina]) {
        const refused = await as(key);
        expect(refused.statusCode).toBe(403);
        expect(refused.json().error.code).toBe("AccessDeniedError");
        expect(refused.body).not.toContain("tool_calls");
      }
      expect((await as(keys.vera)).statusCode).toBe(200);
    }
  });
});
