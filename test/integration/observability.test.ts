import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayHealth } from "../../src/app/operations/gateway-health.js";
import type { Gateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, startTestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

const YAML = `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

const boot = startTestGateway;

describe("metrics and compliance export through a running gateway", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-observability-"));
  const output = join(dir, "audit.cef");
  let gateway: Gateway;
  let app: FastifyInstance;
  let client: Client;

  beforeAll(async () => {
    ({ gateway, app } = await boot(YAML, { MCP_COMPLIANCE_FORMAT: " CEF ", MCP_COMPLIANCE_OUTPUT: output }));
    client = await connectHttp(await app.listen({ host: "127.0.0.1", port: 0 }));
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } },
        { mcp_server: "math", tool: "no_such_tool", arguments: {} },
      ],
    });
    expect(json).toMatchObject({ total: 2, succeeded: 1 });
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    await gateway?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves GET /metrics in the Prometheus text format with tool calls, server state, HTTP and process metrics", async () => {
    const response = await app.inject({ method: "GET", url: "/metrics" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.body).toContain(
      'airlock_tool_calls_total{mcp_server="math",tool="add",status="success"} 1',
    );
    expect(response.body).toMatch(
      /airlock_tool_call_duration_seconds_count\{mcp_server="math",tool="add",status="success"\} 1/,
    );
    expect(response.body).toContain('airlock_mcp_server_state{mcp_server="math",state="ready"} 1');
    expect(response.body).toMatch(
      /airlock_http_request_duration_seconds_count\{method="POST",route="\/mcp",status_code="200"\} \d+/,
    );
    expect(response.body).toMatch(/^process_cpu_seconds_total \d/m);
  });

  it("times each HTTP request once, by route pattern (never the raw URL); one no route matched as unmatched", async () => {
    await app.inject({ method: "GET", url: "/api/mcp_servers/math" });
    await app.inject({ method: "GET", url: "/api/mcp_servers/no-such-server" });
    await app.inject({ method: "HEAD", url: "/api/mcp_servers/math" });
    await app.inject({ method: "GET", url: "/no/such/path" });
    const { body } = await app.inject({ method: "GET", url: "/metrics" });
    const count = (labels: string) =>
      body.match(new RegExp(`^airlock_http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, "m"))?.[1];
    expect(count('method="GET",route="/api/mcp_servers/:id",status_code="200"')).toBe("1");
    expect(count('method="GET",route="/api/mcp_servers/:id",status_code="404"')).toBe("1");
    expect(count('method="HEAD",route="/api/mcp_servers/:id",status_code="200"')).toBe("1");
    expect(count('method="GET",route="unmatched",status_code="404"')).toBe("1");
    expect(body).not.toContain("no-such");
  });

  it("answers gateway_metrics as JSON keyed <server>.<tool>, and as Prometheus text", async () => {
    const { json } = await callJson(client, "gateway_metrics", {});
    expect(json).toMatchObject({
      mcp_servers: { math: { state: "ready" } },
      groups: {},
      tool_calls: { "math.add": { count: 1, success: 1 } },
      discovery: { enabled: false },
      summary: { total_mcp_servers: 1, total_groups: 0 },
    });
    expect(json.summary.total_tool_calls).toBe(
      Object.values(json.tool_calls as Record<string, { count: number }>).reduce(
        (sum, s) => sum + s.count,
        0,
      ),
    );
    expect(json.summary.total_errors).toBe(
      Object.values(json.errors as Record<string, number>).reduce((sum, n) => sum + n, 0),
    );
    const prometheus = await callJson(client, "gateway_metrics", { format: "prometheus" });
    expect(Object.keys(prometheus.json)).toEqual(["metrics"]);
    expect(prometheus.json.metrics).toContain("# TYPE airlock_tool_calls_total counter");
  });

  it("exports each tool invocation as CEF to MCP_COMPLIANCE_OUTPUT and reports it in gateway_health", async () => {
    await waitFor(() => {
      try {
        return readFileSync(output, "utf8").includes("|101|ToolInvocationCompleted|");
      } catch {
        return false;
      }
    });
    const lines = readFileSync(output, "utf8").trimEnd().split("\n");
    expect(lines.every((line) => line.startsWith("CEF:0|Airlock|MCP Gateway|"))).toBe(true);
    expect(lines.some((line) => line.includes("cs1=math") && line.includes("cs2=add"))).toBe(true);
    // The count follows the write's completion, which may come a little after the bytes are seen.
    let json = (await callJson(client, "gateway_health")).json;
    await waitFor(async () => {
      json = (await callJson(client, "gateway_health")).json;
      return json.compliance_export.records_written >= 1;
    });
    expect(json.compliance_export).toMatchObject({
      status: "ok",
      format: "cef",
      destination: "file",
      write_failures: 0,
    });
    expect(json.compliance_export.records_written).toBeGreaterThanOrEqual(1);
  });

  it("counts a later write failure in gateway_health without refusing calls", async () => {
    rmSync(output);
    mkdirSync(output); // appending to a directory fails (EISDIR)
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } }],
    });
    expect(json).toMatchObject({ succeeded: 1 });
    await waitFor(
      async () => (await callJson(client, "gateway_health")).json.compliance_export.write_failures > 0,
    );
    const health = (await callJson(client, "gateway_health")).json;
    expect(health.compliance_export).toMatchObject({ status: "degraded", last_error: "EISDIR" });
    expect(health.status).toBe("healthy");
  });
});

describe("compliance export at boot", () => {
  it("refuses the boot for an unwritable output", async () => {
    await expect(
      boot(YAML, {
        MCP_COMPLIANCE_FORMAT: "syslog",
        MCP_COMPLIANCE_OUTPUT: join(tmpdir(), "no-such-dir-airlock", "x.log"),
      }),
    ).rejects.toThrow(/MCP_COMPLIANCE_OUTPUT/);
  });

  it("refuses an unknown format", () => {
    expect(() => parseConfig(YAML, { env: { MCP_COMPLIANCE_FORMAT: "xml" } })).toThrow(
      /MCP_COMPLIANCE_FORMAT/,
    );
  });

  it("leaves gateway_health without compliance_export when the export is off", async () => {
    const { gateway, app } = await boot(YAML);
    try {
      const response = await app.inject({ method: "GET", url: "/metrics" });
      expect(response.statusCode).toBe(200);
      // The operation itself: it does not read the request context.
      const health = await gatewayHealth.run(gateway.services, {}, {} as never);
      expect(health).not.toHaveProperty("compliance_export");
    } finally {
      await app.close();
      await gateway.shutdown();
    }
  });
});

describe("GET /metrics with authentication on", () => {
  let gateway: Gateway;
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ gateway, app } = await boot(`${YAML}
auth:
  enabled: true
  role_assignments:
    - {principal: bob, role: viewer}
    - {principal: erin, role: developer}
`));
  });
  afterAll(async () => {
    await app?.close();
    await gateway?.shutdown();
  });

  it("answers 401 without credentials, 403 without metrics:read, 200 with it", async () => {
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    const developer = await createApiKey({ gateway }, "erin");
    const denied = await app.inject({ method: "GET", url: "/metrics", headers: { "x-api-key": developer } });
    expect(denied.statusCode).toBe(403);
    const viewer = await createApiKey({ gateway }, "bob");
    const allowed = await app.inject({ method: "GET", url: "/metrics", headers: { "x-api-key": viewer } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain("# TYPE airlock_tool_calls_total counter");
  });
});
