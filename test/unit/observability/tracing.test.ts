import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/adapters/observability/logger.js";
import { loggableUrl, resolveOtlpUrl } from "../../../src/adapters/observability/otlp-url.js";
import { PromTelemetryHealth } from "../../../src/adapters/observability/telemetry-health.js";
import { whenUnreachable } from "../../../src/adapters/observability/tracing/collector-probe.js";
import { OtelTracer } from "../../../src/adapters/observability/tracing/otel-tracer.js";
import {
  failureReason,
  ReportingSpanExporter,
} from "../../../src/adapters/observability/tracing/reporting-span-exporter.js";
import { samplerNamed } from "../../../src/adapters/observability/tracing/sampler.js";
import type { Logger } from "../../../src/app/ports/logger.js";
import { NOOP_TRACER } from "../../../src/app/ports/tracer.js";

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A tracer writing JSON lines to `written`, with its Prometheus counters. */
function consoleTracer(
  written: string[],
  options: { callerIds?: boolean; sampler?: string; otlp?: SpanExporter } = {},
) {
  const health = new PromTelemetryHealth();
  const registry = new Registry();
  health.register(registry);
  const tracer = new OtelTracer(
    {
      resource: resourceFromAttributes({ "service.name": "svc" }),
      serviceVersion: "1.2.3",
      sampler: samplerNamed(options.sampler ?? "parentbased_always_on", 1),
      otlp: options.otlp ? { exporter: options.otlp, target: "test" } : null,
      consoleWrite: options.otlp ? null : (line) => written.push(line),
      callerIds: options.callerIds ?? false,
      meter: null,
      health,
    },
    SILENT,
  );
  return { tracer, registry };
}

describe("where a signal is exported", () => {
  it.each([
    [
      "the file's endpoint, with the signal path",
      "http://c:4318",
      "http://e:1/x",
      "http/protobuf",
      "http://c:4318/v1/traces",
    ],
    ["the file's endpoint as written over gRPC", "http://c:4317", undefined, "grpc", "http://c:4317"],
    [
      "the environment's endpoint without a file key",
      undefined,
      "http://e:4318/v1/traces",
      "http/json",
      "http://e:4318/v1/traces",
    ],
    [
      "localhost:4318 by default over HTTP",
      undefined,
      undefined,
      "http/protobuf",
      "http://localhost:4318/v1/traces",
    ],
    ["localhost:4317 by default over gRPC", undefined, undefined, "grpc", "http://localhost:4317"],
  ] as const)("is %s", (_name, file, env, protocol, url) => {
    expect(resolveOtlpUrl(file, env, protocol, "traces")).toBe(url);
  });
});

describe("the OTLP traces URL of a file endpoint", () => {
  it.each([
    ["http://localhost:4317", "http://localhost:4317/v1/traces"],
    ["http://collector:4318/", "http://collector:4318/v1/traces"],
    ["https://otel.example.com", "https://otel.example.com/v1/traces"],
    ["http://collector:4318/v1/traces", "http://collector:4318/v1/traces"],
    ["http://collector:4318/custom/path", "http://collector:4318/custom/path"],
    ["http://collector:4318?tenant=a", "http://collector:4318/v1/traces?tenant=a"],
  ])("reads %s as %s", (endpoint, url) => {
    expect(resolveOtlpUrl(endpoint, undefined, "http/json", "traces")).toBe(url);
  });

  it("is logged without credentials or query", () => {
    expect(loggableUrl("https://user:secret@otel.example.com/v1/traces?token=t")).toBe(
      "https://otel.example.com/v1/traces",
    );
  });
});

describe("export failures", () => {
  it("names an error code or HTTP status, never the error message", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.1:4318 secret"), {
      code: "ECONNREFUSED",
    });
    expect(failureReason(refused)).toBe("ECONNREFUSED");
    expect(failureReason(Object.assign(new Error("Service Unavailable"), { code: 503 }))).toBe("HTTP 503");
    expect(failureReason(new TypeError("https://user:secret@host"))).toBe("TypeError");
    expect(failureReason(undefined)).toBe("unknown");
  });

  it("are warned once, then counted without a log line, and recovery is logged at info", async () => {
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    const inner = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces`, timeoutMillis: 300 });
    let succeed = false;
    let failures = 0;
    const exporter = new ReportingSpanExporter(
      {
        export: (spans, done) =>
          succeed ? done({ code: ExportResultCode.SUCCESS }) : inner.export(spans, done),
        shutdown: () => inner.shutdown(),
      },
      { logger, target: "http://127.0.0.1/v1/traces", now: () => 0, onFailure: () => failures++ },
    );
    const exportOnce = () =>
      new Promise<number>((done) => exporter.export([], (result) => done(result.code)));
    // An empty batch still makes a request, which the closed port refuses.
    expect(await exportOnce()).toBe(ExportResultCode.FAILED);
    expect(await exportOnce()).toBe(ExportResultCode.FAILED);
    expect(await exportOnce()).toBe(ExportResultCode.FAILED);
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ reason: "ECONNREFUSED" });
    expect(failures).toBe(3);
    succeed = true;
    await exportOnce();
    expect(lines.at(-1)).toMatchObject({ level: "info" });
    expect(lines).toHaveLength(2);
    await exporter.shutdown();
  });
});

describe("the collector probe at stop", () => {
  it("tells a collector that refuses connections, so the last flush does not wait for it", async () => {
    await expect(
      whenUnreachable(`http://127.0.0.1:${await closedPort()}/v1/traces`),
    ).resolves.toBeUndefined();
  });
});

describe("the OpenTelemetry tracer", () => {
  it("writes one JSON line per tool call span, named and attributed by the MCP conventions", async () => {
    const written: string[] = [];
    const { tracer } = consoleTracer(written);
    const span = tracer.startToolCall({
      target: "pool",
      tool: "add",
      callId: "c1",
      caller: { id: "alice", tenantId: "t1", sessionId: "s1" },
    });
    span.routed("m1");
    span.end("failure", { errorType: "ToolTimeoutError" });
    span.end("success");
    await tracer.shutdown();
    expect(written).toHaveLength(1);
    expect(written[0]?.endsWith("\n")).toBe(true);
    const line = JSON.parse(written[0] as string);
    const [, traceId, spanId] = span.traceContext?.traceparent?.split("-") ?? [];
    expect(line).toMatchObject({
      trace_id: traceId,
      span_id: spanId,
      name: "tools/call add",
      kind: 2,
      service_name: "svc",
      status: { code: 2, message: "ToolTimeoutError" },
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "airlock.server.id": "pool",
        "airlock.route.backend": "m1",
        "airlock.tool.status": "failure",
        "error.type": "ToolTimeoutError",
      },
    });
    expect(line.attributes["enduser.id"]).toBeUndefined();
  });

  it("marks an isError answer as an error span with error.type tool_error", async () => {
    const written: string[] = [];
    const { tracer } = consoleTracer(written);
    tracer
      .startToolCall({ target: "a", tool: "t", callId: "c", caller: { id: "x", tenantId: null } })
      .end("success", { toolError: true });
    await tracer.shutdown();
    expect(JSON.parse(written[0] as string)).toMatchObject({
      status: { code: 2 },
      attributes: { "error.type": "tool_error", "airlock.tool.status": "success" },
    });
  });

  it("records caller ids only when asked to", async () => {
    const written: string[] = [];
    const { tracer } = consoleTracer(written, { callerIds: true });
    tracer
      .startToolCall({
        target: "a",
        tool: "t",
        callId: "c",
        caller: { id: "alice", tenantId: "t1", sessionId: "s1" },
      })
      .end("success");
    await tracer.shutdown();
    expect(JSON.parse(written[0] as string).attributes).toMatchObject({
      "enduser.id": "alice",
      "airlock.tenant.id": "t1",
      "mcp.session.id": "s1",
    });
  });

  it("makes a tool call started inside a request span its child", async () => {
    const written: string[] = [];
    const { tracer } = consoleTracer(written);
    const request = tracer.startMcpRequest({
      method: "tools/call",
      target: "gateway_call",
      requestId: 7,
      transport: "pipe",
      protocolVersion: "2025-11-25",
      meta: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
    });
    await request.run(async () => {
      await Promise.resolve();
      tracer
        .startToolCall({ target: "a", tool: "t", callId: "c", caller: { id: "x", tenantId: null } })
        .end("success");
    });
    request.end({ errorType: "tool_error" });
    await tracer.shutdown();
    const [call, server] = written.map((line) => JSON.parse(line));
    expect(server).toMatchObject({
      name: "tools/call gateway_call",
      kind: 1,
      trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
      parent_span_id: "00f067aa0ba902b7",
      status: { code: 2 },
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "gateway_call",
        "jsonrpc.request.id": "7",
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "pipe",
        "error.type": "tool_error",
      },
    });
    expect(call).toMatchObject({ trace_id: server.trace_id, parent_span_id: server.span_id });
  });

  it("names the request span's trace and span in a JSON log line written while it is handled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trace-log-"));
    const file = join(dir, "gateway.log");
    try {
      const log = createLogger({ level: "INFO", json: true, file, stream: "stdout" });
      const { tracer } = consoleTracer([]);
      const request = tracer.startMcpRequest({ method: "tools/list", transport: "tcp" });
      await request.run(async () => {
        await Promise.resolve();
        log.info({ tool: "t" }, "inside");
      });
      log.info({ version: "1" }, "outside");
      request.end();
      await tracer.shutdown();
      const [inside, outside] = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(inside).toMatchObject({ msg: "inside", trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(inside.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(outside.trace_id).toBeUndefined();
      expect(outside.version).toBe("1");
      expect(inside.tool).toBe("t");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("ignores a malformed traceparent in the caller's _meta and starts a new trace", async () => {
    const { tracer } = consoleTracer([]);
    const span = tracer.startToolCall({
      target: "a",
      tool: "t",
      callId: "c",
      caller: { id: "x", tenantId: null },
      parent: { traceparent: "00-not-a-trace-01", progressToken: 3 },
    });
    expect(span.traceContext?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    span.end("success");
    await tracer.shutdown();
  });

  it("records nothing with the always_off sampler", async () => {
    const written: string[] = [];
    const { tracer } = consoleTracer(written, { sampler: "always_off" });
    const span = tracer.startToolCall({
      target: "a",
      tool: "t",
      callId: "c",
      caller: { id: "x", tenantId: null },
    });
    span.end("success");
    await tracer.shutdown();
    expect(written).toHaveLength(0);
    expect(span.traceContext?.traceparent).toMatch(/-00$/);
  });

  it("counts the spans it drops when its queue is full", async () => {
    // An exporter that never answers: past the batch in flight (512), the queue holds 2048 spans.
    const hanging: SpanExporter = { export: () => {}, shutdown: async () => {} };
    const { tracer, registry } = consoleTracer([], { otlp: hanging });
    for (let i = 0; i < 2_700; i++) {
      tracer
        .startToolCall({ target: "a", tool: "t", callId: "c", caller: { id: "x", tenantId: null } })
        .end("success");
    }
    const text = await registry.metrics();
    void tracer.shutdown();
    expect(text).toMatch(/airlock_spans_dropped_total\{reason="queue_full"\} (\d+)/);
    expect(
      Number(/airlock_spans_dropped_total\{reason="queue_full"\} (\d+)/.exec(text)?.[1]),
    ).toBeGreaterThan(0);
  });

  it("is a no-op while tracing is off: no trace context to propagate", () => {
    const span = NOOP_TRACER.startToolCall({
      target: "a",
      tool: "t",
      callId: "c",
      caller: { id: "x", tenantId: null },
    });
    expect(span.traceContext).toBeUndefined();
    expect(
      NOOP_TRACER.startToolCall({ target: "b", tool: "u", callId: "d", caller: { id: "y", tenantId: null } }),
    ).toBe(span);
    expect(NOOP_TRACER.startMcpRequest({ method: "tools/call", transport: "tcp" })).toBe(span);
  });
});
