import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * A refill rate so slow (one token per 100 s) that no token comes back while a test runs: the
 * counts below depend on the burst only, never on how fast the machine is.
 */
const SLOW = 0.01;

interface Running extends TestGateway {
  baseUrl: string;
  client: Client;
}

let running: Running | null = null;

afterEach(async () => {
  await running?.client.close();
  await running?.close();
  running = null;
});

/** A gateway wired as `serve` wires it, listening on loopback, with an MCP client connected. */
async function start(extraYaml: string, env: Record<string, string> = {}): Promise<Running> {
  const { gateway, app, close } = await startTestGateway(fleetYaml(extraYaml), env);
  const baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  const client = await connectHttp(baseUrl);
  running = { gateway, app, baseUrl, client, close };
  return running;
}

interface RestError {
  error: { code: string; message: string; details: Record<string, unknown> };
}

const stop = (gw: Running, id: string) =>
  fetch(new URL(`/api/mcp_servers/${id}/stop`, gw.baseUrl), { method: "POST" });

describe("the command-bus rate limit", () => {
  it("admits exactly 5 of 15 concurrent REST requests with burst 5", async () => {
    const gw = await start(`rate_limit: { rps: ${SLOW}, burst: 5 }`);
    const responses = await Promise.all(Array.from({ length: 15 }, () => stop(gw, "math")));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it("answers 429 on REST with Retry-After in whole seconds and retry_after and scope in the details", async () => {
    const gw = await start(`rate_limit: { rps: 0.3, burst: 1 }`);
    expect((await stop(gw, "math")).status).toBe(200);
    const refused = await stop(gw, "math");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as RestError;
    expect(body.error).toMatchObject({
      code: "RateLimitExceeded",
      details: { scope: "all_callers", budget: "stop", limit: 1, retry_after: expect.any(Number) },
    });
    const retryAfter = body.error.details.retry_after as number;
    // Up to 1 / 0.3 s; some of it elapsed between the two requests.
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3.334);
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil(retryAfter)));
    expect(body.error.message).toMatch(
      /budget of command 'stop' is used up \(limit 1, refilling at 0\.3 per second\); retry in [\d.]+ s/,
    );
  });

  it("charges REST routes and MCP tools of the same command one budget", async () => {
    const gw = await start(`rate_limit: { rps: ${SLOW}, burst: 2 }`);
    expect((await stop(gw, "math")).status).toBe(200);
    expect((await callJson(gw.client, "gateway_stop", { mcp_server: "math" })).json).toMatchObject({
      stopped: "math",
    });
    const third = await callJson(gw.client, "gateway_stop", { mcp_server: "math" });
    expect(third.json).toMatchObject({ error_type: "RateLimitExceeded", details: { budget: "stop" } });
    // Another command has a budget of its own.
    expect((await callJson(gw.client, "gateway_warm", { mcp_servers: "text" })).json.warmed).toEqual([
      "text",
    ]);
  });

  it("never limits a read-only tool", async () => {
    const gw = await start(`rate_limit: { rps: ${SLOW}, burst: 1 }`);
    for (let i = 0; i < 25; i++) {
      const { json, isError } = await callJson(gw.client, "gateway_list");
      expect(isError).toBe(false);
      expect(json.error_type).toBeUndefined();
    }
    // The limit is on: a limited command of the same gateway runs out after its one token.
    await callJson(gw.client, "gateway_stop", { mcp_server: "math" });
    const limited = await callJson(gw.client, "gateway_stop", { mcp_server: "math" });
    expect(limited.json.error_type).toBe("RateLimitExceeded");
    expect((await callJson(gw.client, "gateway_list")).json.error_type).toBeUndefined();
    const health = await callJson(gw.client, "gateway_health");
    expect(health.json.security.rate_limiting.config).toEqual({
      requests_per_second: SLOW,
      burst_size: 1,
      scope: "all_callers",
    });
  });

  it("limits gateway_tools, answering failure shape 1 with the details", async () => {
    const gw = await start(`rate_limit: { rps: ${SLOW}, burst: 1 }`);
    const first = await callJson(gw.client, "gateway_tools", { mcp_server: "math" });
    expect(first.json).toMatchObject({ mcp_server: "math", state: "ready" });
    const second = await callJson(gw.client, "gateway_tools", { mcp_server: "math" });
    expect(second.isError).toBe(false);
    expect(second.json).toEqual({
      error: expect.stringContaining("budget of command 'tools' is used up"),
      error_type: "RateLimitExceeded",
      details: { retry_after: expect.any(Number), scope: "all_callers", budget: "tools", limit: 1 },
    });
    expect(second.json.details.retry_after).toBeGreaterThan(90);
  });

  it("with per_caller, refuses a caller over its own bucket (all anonymous callers are one)", async () => {
    const gw = await start(`rate_limit: { rps: 1000, burst: 1000, per_caller: { rps: ${SLOW}, burst: 2 } }`);
    const other = await connectHttp(gw.baseUrl);
    try {
      expect((await callJson(gw.client, "gateway_stop", { mcp_server: "math" })).json.stopped).toBe("math");
      expect((await callJson(other, "gateway_stop", { mcp_server: "math" })).json.stopped).toBe("math");
      const third = await callJson(other, "gateway_stop", { mcp_server: "math" });
      expect(third.json).toMatchObject({
        error_type: "RateLimitExceeded",
        details: { scope: "caller", budget: "stop", limit: 2 },
      });
      const rest = await stop(gw, "math");
      expect(rest.status).toBe(429);
      expect(((await rest.json()) as RestError).error.details.scope).toBe("caller");
    } finally {
      await other.close();
    }
  });

  it("lets the rate_limit block win over MCP_RATE_LIMIT_RPS and MCP_RATE_LIMIT_BURST", async () => {
    const gw = await start(`rate_limit: { rps: ${SLOW}, burst: 2 }`, {
      MCP_RATE_LIMIT_RPS: "1000",
      MCP_RATE_LIMIT_BURST: "1000",
    });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await stop(gw, "math")).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it("takes MCP_RATE_LIMIT_BURST and MCP_RATE_LIMIT_RPS when the block leaves them out", async () => {
    const gw = await start("", { MCP_RATE_LIMIT_RPS: String(SLOW), MCP_RATE_LIMIT_BURST: "3" });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await stop(gw, "math")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

interface BatchResult {
  success: boolean;
  error_type: string | null;
  error: string | null;
}

async function batch(client: Client, calls: Record<string, unknown>[]): Promise<BatchResult[]> {
  const { json } = await callJson(client, "gateway_call", { calls, max_concurrency: calls.length });
  return json.results;
}

const add = { mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } };

describe("per-tenant budgets (execution.tenant_limits)", () => {
  it("with '*', tenantless callers share one budget: over its rps they are refused with reason rate", async () => {
    const gw = await start(`
execution:
  tenant_limits:
    "*": { max_concurrency: 10, rps: ${SLOW}, burst: 3 }
`);
    const results = await batch(gw.client, [add, add, add, add, add]);
    expect(results.filter((r) => r.success)).toHaveLength(3);
    const refused = results.filter((r) => !r.success);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.error_type).toBe("TenantQuotaExceeded");
      expect(r.error).toContain("rate budget 'tenant:none' is used up");
    }
    // Another session is the same tenantless caller: the budget is spent for it too.
    const other = await connectHttp(gw.baseUrl);
    try {
      expect((await batch(other, [add]))[0]).toMatchObject({
        success: false,
        error_type: "TenantQuotaExceeded",
      });
    } finally {
      await other.close();
    }
  });

  it("with '*', refuses calls over max_concurrency with reason concurrency", async () => {
    const gw = await start(`
execution:
  tenant_limits:
    "*": { max_concurrency: 1, rps: 1000, burst: 1000 }
`);
    await callJson(gw.client, "gateway_warm", { mcp_servers: "ctl" });
    const sleep = { mcp_server: "ctl", tool: "sleep", arguments: { ms: 1_000 } };
    const results = await batch(gw.client, [sleep, sleep]);
    expect(results.filter((r) => r.success)).toHaveLength(1);
    const [refused] = results.filter((r) => !r.success);
    expect(refused?.error_type).toBe("TenantQuotaExceeded");
    expect(refused?.error).toContain("concurrency budget 'tenant:none' is used up (1 calls at once)");
    // The slot is free again once the call ended.
    expect((await batch(gw.client, [add]))[0]?.success).toBe(true);
  });

  it("without '*', refuses every call of a tenantless caller with reason no_budget", async () => {
    const gw = await start(`
execution:
  tenant_limits:
    acme: { max_concurrency: 10, rps: 1000, burst: 1000 }
`);
    const results = await batch(gw.client, [add, add]);
    for (const r of results) {
      expect(r).toMatchObject({ success: false, error_type: "TenantQuotaExceeded" });
      expect(r.error).toContain("callers without a tenant have no budget in execution.tenant_limits");
    }
    expect(gw.gateway.services.fleet.require("math").stats.total_invocations).toBe(0);
  });
});
