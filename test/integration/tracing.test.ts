import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestGateway, waitFor } from "../support/gateway.js";
import { callJson, connect, connectHttp, type ToolResult } from "../support/mcp-client.js";
import { type CollectedSpan, startOtlpCollector } from "../support/otlp-collector.js";
import { envelope, type StatelessAnswer, statelessPost } from "../support/stateless-post.js";

const META_ECHO = resolve("test/fixtures/servers/meta-echo.mjs");
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

interface HeaderRecordingServer {
  url: string;
  /** Headers of every `tools/call` POST received. */
  toolCalls: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** A real streamable HTTP MCP server (stateless) with a `shout` tool, recording the headers of tool calls. */
async function startRecordingHttpServer(): Promise<HeaderRecordingServer> {
  const toolCalls: IncomingHttpHeaders[] = [];
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (body.method === "tools/call") toolCalls.push(req.headers);
    const mcp = new McpServer({ name: "remote-recording", version: "1.0.0" });
    mcp.registerTool("shout", { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text: text.toUpperCase() }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    toolCalls,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function yaml(remoteUrl: string, tracing: string): string {
  return `
mcp_servers:
  far:
    mode: remote
    endpoint: ${remoteUrl}
  echo:
    command: [node, ${JSON.stringify(META_ECHO)}]
    tools: {deny_list: [forbidden]}
  pool:
    mode: group
    auto_start: false
    members: [{id: echo}]
observability:
  tracing:
${tracing}
`;
}

interface Outcome {
  success: boolean;
  error_type?: string;
  result?: { content: { text: string }[] };
}

/**
 * Boots a gateway, runs `calls` through `gateway_call` one at a time and stops the gateway, which
 * flushes the spans of those calls to the collector.
 */
async function runCalls(
  tracing: string,
  calls: { mcp_server: string; tool: string; arguments: Record<string, unknown> }[],
  env: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const collector = await startOtlpCollector();
  const remote = await startRecordingHttpServer();
  const { app, close } = await startTestGateway(
    yaml(remote.url, tracing.replaceAll("COLLECTOR", collector.endpoint)),
    env,
  );
  let client: Client | undefined;
  try {
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    client = await connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers } }),
    );
    const { json } = await callJson(client, "gateway_call", { calls, max_concurrency: 1 });
    return { collector, remote, results: json.results as Outcome[] };
  } finally {
    await client?.close();
    await close();
    await collector.close();
    await remote.close();
  }
}

const CALLS = [
  { mcp_server: "far", tool: "shout", arguments: { text: "hi" } },
  { mcp_server: "echo", tool: "meta", arguments: {} },
  { mcp_server: "pool", tool: "meta", arguments: {} },
  { mcp_server: "echo", tool: "forbidden", arguments: {} },
];

const SERVER = 2;
const CLIENT = 3;

/** The CLIENT span of the upstream call of `tool` on `server`. */
function spanOf(spans: CollectedSpan[], server: string, tool: string): CollectedSpan {
  const found = spans.filter(
    (span) =>
      span.kind === CLIENT &&
      span.attributes["airlock.server.id"] === server &&
      span.attributes["gen_ai.tool.name"] === tool,
  );
  expect(found).toHaveLength(1);
  return found[0] as CollectedSpan;
}

function metaOf(outcome: Outcome | undefined): Record<string, unknown> | null {
  return JSON.parse(outcome?.result?.content[0]?.text ?? "null");
}

const INCOMING_TRACE = "5bf92f3577b34da6a3ce929d0e0e4736";
const INCOMING_SPAN = "10f067aa0ba902b7";

describe("tracing enabled, pointed at an OTLP collector", () => {
  let run: Awaited<ReturnType<typeof runCalls>>;

  beforeAll(async () => {
    run = await runCalls(
      `    otlp_endpoint: COLLECTOR\n    service_name: airlock-under-test`,
      CALLS,
      // The file's keys win over the environment's.
      { OTEL_SERVICE_NAME: "from-env", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
      { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` },
    );
  }, 30_000);

  it("posts the spans to <endpoint>/v1/traces as OTLP/HTTP protobuf, named after the file's service", () => {
    const traces = run.collector.requests.filter((request) => request.path === "/v1/traces");
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((request) => request.headers["content-type"] === "application/x-protobuf")).toBe(
      true,
    );
    const span = spanOf(run.collector.spans, "far", "shout");
    expect(span.name).toBe("tools/call shout");
    expect(span.resource["service.name"]).toBe("airlock-under-test");
  });

  it("records one CLIENT span per upstream call with the MCP conventions' attributes", () => {
    expect(run.collector.spans.filter((span) => span.kind === CLIENT)).toHaveLength(CALLS.length);
    const span = spanOf(run.collector.spans, "far", "shout");
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "shout",
      "gen_ai.operation.name": "execute_tool",
      "airlock.server.id": "far",
      "airlock.tool.status": "success",
      "airlock.route.backend": "far",
    });
    expect(span.statusCode).not.toBe(2);
  });

  it("puts the whole batch in the incoming trace: HTTP span, MCP SERVER span, then the CLIENT spans", () => {
    expect(new Set(run.collector.spans.map((span) => span.traceId))).toEqual(new Set([INCOMING_TRACE]));
    const server = run.collector.spans.filter((span) => span.name === "tools/call gateway_call");
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ kind: SERVER });
    expect(server[0]?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "gateway_call",
      "network.transport": "tcp",
    });
    expect(typeof server[0]?.attributes["jsonrpc.request.id"]).toBe("string");
    expect(typeof server[0]?.attributes["mcp.protocol.version"]).toBe("string");
    const http = run.collector.spans.find((span) => span.spanId === server[0]?.parentSpanId);
    expect(http).toMatchObject({ kind: SERVER, name: "POST /mcp", parentSpanId: INCOMING_SPAN });
    expect(http?.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/mcp",
      "url.path": "/mcp",
      "http.response.status_code": 200,
    });
    for (const call of run.collector.spans.filter((span) => span.kind === CLIENT)) {
      expect(call.parentSpanId).toBe(server[0]?.spanId);
    }
    const initialize = run.collector.spans.find((span) => span.name === "initialize");
    expect(initialize?.kind).toBe(SERVER);
  });

  it("exports the MCP operation durations as OTel histograms in seconds, beside the spans", () => {
    const server = run.collector.metrics.filter((point) => point.name === "mcp.server.operation.duration");
    const client = run.collector.metrics.filter((point) => point.name === "mcp.client.operation.duration");
    expect(server.every((point) => point.unit === "s")).toBe(true);
    expect(server.find((point) => point.attributes["gen_ai.tool.name"] === "gateway_call")).toMatchObject({
      count: 1,
      attributes: { "mcp.method.name": "tools/call", "network.transport": "tcp" },
    });
    expect(client.reduce((sum, point) => sum + point.count, 0)).toBe(CALLS.length);
    expect(
      client.find((point) => point.attributes["gen_ai.tool.name"] === "forbidden")?.attributes,
    ).toMatchObject({
      "error.type": "ToolAccessDeniedError",
    });
  });

  it("sends the HTTP upstream a traceparent header naming the gateway's span, in the same trace", () => {
    const span = spanOf(run.collector.spans, "far", "shout");
    expect(run.remote.toolCalls).toHaveLength(1);
    const header = String(run.remote.toolCalls[0]?.traceparent);
    const [, traceId, parentId] = TRACEPARENT.exec(header) ?? [];
    expect(traceId).toBe(span.traceId);
    expect(parentId).toBe(span.spanId);
  });

  it("sends a stdio upstream the trace context in params._meta", () => {
    expect(run.results[1]?.success).toBe(true);
    const meta = metaOf(run.results[1]);
    const span = spanOf(run.collector.spans, "echo", "meta");
    const [, traceId, parentId] = TRACEPARENT.exec(String(meta?.traceparent)) ?? [];
    expect(traceId).toBe(span.traceId);
    expect(parentId).toBe(span.spanId);
  });

  it("names the group and the member that served a call through a group", () => {
    expect(run.results[2]?.success).toBe(true);
    const span = spanOf(run.collector.spans, "pool", "meta");
    expect(span.attributes).toMatchObject({
      "airlock.route.backend": "echo",
      "airlock.tool.status": "success",
    });
    const meta = metaOf(run.results[2]);
    expect(String(meta?.traceparent)).toContain(span.spanId);
  });

  it("ends a call refused by the tool policy as a denied error span", () => {
    expect(run.results[3]).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    const span = spanOf(run.collector.spans, "echo", "forbidden");
    expect(span.attributes).toMatchObject({
      "airlock.tool.status": "denied",
      "error.type": "ToolAccessDeniedError",
    });
    expect(span.statusCode).toBe(2);
  });

  it("records no caller ids by default", () => {
    for (const span of run.collector.spans) {
      expect(span.attributes["enduser.id"]).toBeUndefined();
      expect(span.attributes["mcp.session.id"]).toBeUndefined();
    }
  });
});

describe("tracing with caller ids", () => {
  it("records the caller's principal and session when MCP_TRACING_CALLER_IDS is true over the file's false", async () => {
    const run = await runCalls(
      `    otlp_endpoint: COLLECTOR\n    caller_ids: false`,
      [{ mcp_server: "far", tool: "shout", arguments: { text: "hi" } }],
      { MCP_TRACING_CALLER_IDS: "true" },
    );
    const span = spanOf(run.collector.spans, "far", "shout");
    expect(span.attributes["enduser.id"]).toBe("anonymous");
    expect(typeof span.attributes["mcp.session.id"]).toBe("string");
  }, 30_000);
});

describe("tracing set by the OTEL_* variables", () => {
  it("exports nothing with OTEL_SDK_DISABLED=true when the file does not write enabled", async () => {
    const run = await runCalls(`    otlp_endpoint: COLLECTOR`, CALLS.slice(0, 2), {
      OTEL_SDK_DISABLED: "true",
    });
    expect(run.results.map((outcome) => outcome.success)).toEqual([true, true]);
    expect(run.collector.requests).toHaveLength(0);
    expect(run.remote.toolCalls[0]?.traceparent).toBeUndefined();
  }, 30_000);

  it("exports to OTEL_EXPORTER_OTLP_ENDPOINT in the protocol of OTEL_EXPORTER_OTLP_PROTOCOL, named by OTEL_SERVICE_NAME", async () => {
    const collector = await startOtlpCollector();
    try {
      const run = await runCalls(`    caller_ids: false`, CALLS.slice(0, 1), {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "named-by-env",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      });
      await run.collector.close();
      const traces = collector.requests.filter((request) => request.path === "/v1/traces");
      expect(traces.length).toBeGreaterThan(0);
      expect(traces.every((request) => request.headers["content-type"] === "application/json")).toBe(true);
      expect(spanOf(collector.spans, "far", "shout").resource).toMatchObject({
        "service.name": "named-by-env",
        "deployment.environment": "test",
      });
    } finally {
      await collector.close();
    }
  }, 30_000);

  it("samples nothing with OTEL_TRACES_SAMPLER=always_off", async () => {
    const run = await runCalls(`    otlp_endpoint: COLLECTOR`, CALLS.slice(0, 1), {
      OTEL_TRACES_SAMPLER: "always_off",
    });
    expect(run.collector.spans).toHaveLength(0);
  }, 30_000);
});

describe("a collector that refuses the spans", () => {
  it("counts each failed export in airlock_telemetry_export_failures_total", async () => {
    const collector = await startOtlpCollector();
    collector.refusals.push(...Array.from({ length: 50 }, () => 503));
    const remote = await startRecordingHttpServer();
    // Batches every 50 ms rather than 5 s (read by the SDK's batch processor from the process).
    process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
    const { app, close } = await startTestGateway(
      yaml(remote.url, `    otlp_endpoint: ${collector.endpoint}`),
      { OTEL_EXPORTER_OTLP_TIMEOUT: "1000" },
    );
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    let client: Client | undefined;
    try {
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      client = await connectHttp(base);
      const failures = async () => {
        const text = await (await fetch(new URL("/metrics", base))).text();
        return Number(
          /airlock_telemetry_export_failures_total\{signal="traces"\} (\d+)/.exec(text)?.[1] ?? 0,
        );
      };
      expect(await failures()).toBe(0);
      await callJson(client, "gateway_call", { calls: CALLS.slice(0, 1) });
      await waitFor(async () => (await failures()) >= 1, 15_000);
    } finally {
      await client?.close();
      await close();
      await collector.close();
      await remote.close();
    }
  }, 30_000);
});

describe("tracing disabled", () => {
  it("exports nothing and adds no trace context to upstream requests", async () => {
    const run = await runCalls(`    enabled: false\n    otlp_endpoint: COLLECTOR`, CALLS.slice(0, 2));
    expect(run.results.map((outcome) => outcome.success)).toEqual([true, true]);
    expect(run.collector.requests).toHaveLength(0);
    expect(run.remote.toolCalls).toHaveLength(1);
    expect(run.remote.toolCalls[0]?.traceparent).toBeUndefined();
    expect(metaOf(run.results[1])?.traceparent).toBeUndefined();
  }, 30_000);
});

describe("tracing on the front door", () => {
  const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const clientSpan = "00f067aa0ba902b7";
  const frontDoorYaml = (endpoint: string) => `
tool_access: {mode: front_door}
mcp_servers:
  echo:
    command: [node, ${JSON.stringify(META_ECHO)}]
observability:
  tracing: {otlp_endpoint: "${endpoint}"}
`;
  const toolListed = (client: Client, name: string) =>
    waitFor(async () => (await client.listTools()).tools.some((tool) => tool.name === name), 20_000);

  it("continues the caller's trace from _meta and keeps the caller's other _meta keys for the upstream", async () => {
    const collector = await startOtlpCollector();
    const { gateway, app, close } = await startTestGateway(frontDoorYaml(`${collector.endpoint}/`));
    let client: Client | undefined;
    let meta: Record<string, unknown> | null = null;
    try {
      client = await connectHttp(await app.listen({ host: "127.0.0.1", port: 0 }));
      gateway.startBackground();
      await toolListed(client, "meta");
      const result = (await client.callTool({
        name: "meta",
        arguments: {},
        _meta: { traceparent: `00-${clientTrace}-${clientSpan}-01`, "x-kept": "yes" },
      })) as ToolResult;
      meta = JSON.parse(result.content[0]?.text ?? "null");
    } finally {
      await client?.close();
      await close();
      await collector.close();
    }
    const span = spanOf(collector.spans, "echo", "meta");
    const server = collector.spans.find((candidate) => candidate.spanId === span.parentSpanId);
    expect(server).toMatchObject({ name: "tools/call meta", kind: SERVER, traceId: clientTrace });
    expect(server?.parentSpanId).toBe(clientSpan);
    expect(span.traceId).toBe(clientTrace);
    expect(meta).toMatchObject({ traceparent: `00-${clientTrace}-${span.spanId}-01`, "x-kept": "yes" });
  }, 40_000);

  it("gives a stateless (2026-07-28) tools/call its SERVER span, in the caller's trace, over its CLIENT span", async () => {
    const collector = await startOtlpCollector();
    const { gateway, app, close } = await startTestGateway(frontDoorYaml(collector.endpoint));
    let answer: StatelessAnswer | undefined;
    try {
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      const client = await connectHttp(base);
      gateway.startBackground();
      await toolListed(client, "meta");
      await client.close();
      answer = await statelessPost(
        base,
        "tools/call",
        { name: "meta", arguments: {} },
        { meta: { ...envelope(), traceparent: `00-${clientTrace}-${clientSpan}-01` } },
      );
    } finally {
      await close();
      await collector.close();
    }
    expect(answer?.body.result?.resultType).toBe("complete");
    const servers = collector.spans.filter(
      (span) => span.kind === SERVER && span.name === "tools/call meta" && span.traceId === clientTrace,
    );
    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({ parentSpanId: clientSpan, statusCode: 0 });
    expect(servers[0]?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": "7",
    });
    const calls = collector.spans.filter(
      (span) => span.kind === CLIENT && span.parentSpanId === servers[0]?.spanId,
    );
    expect(calls).toHaveLength(1);
  }, 40_000);

  it("continues a trace from the HTTP traceparent header, and _meta wins over it", async () => {
    const collector = await startOtlpCollector();
    const { gateway, app, close } = await startTestGateway(frontDoorYaml(collector.endpoint));
    const headerTrace = "0af7651916cd43dd8448eb211c80319c";
    const headerSpan = "b7ad6b7169203331";
    let client: Client | undefined;
    try {
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      client = await connect(
        new StreamableHTTPClientTransport(new URL("/mcp", base), {
          requestInit: {
            headers: { traceparent: `00-${headerTrace}-${headerSpan}-01`, tracestate: "vendor=1" },
          },
        }),
      );
      gateway.startBackground();
      await toolListed(client, "meta");
      await client.callTool({ name: "meta", arguments: { n: 1 } });
      await client.callTool({
        name: "meta",
        arguments: { n: 2 },
        _meta: { traceparent: `00-${clientTrace}-${clientSpan}-01` },
      });
    } finally {
      await client?.close();
      await close();
      await collector.close();
    }
    const byId = new Map(collector.spans.map((span) => [span.spanId, span]));
    const servers = collector.spans.filter((span) => span.kind === SERVER && span.name === "tools/call meta");
    expect(servers.map((span) => span.traceId)).toEqual([headerTrace, clientTrace]);
    // The first: under the POST's HTTP span, itself under the header's span.
    const http = byId.get(servers[0]?.parentSpanId ?? "");
    expect(http).toMatchObject({ name: "POST /mcp", parentSpanId: headerSpan });
    // The second: _meta names its parent.
    expect(servers[1]?.parentSpanId).toBe(clientSpan);
    for (const server of servers) {
      const calls = collector.spans.filter(
        (span) => span.kind === CLIENT && span.parentSpanId === server.spanId,
      );
      expect(calls).toHaveLength(1);
    }
  }, 40_000);
});
