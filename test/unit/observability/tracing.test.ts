import { createServer } from "node:net";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { describe, expect, it } from "vitest";
import { loggableUrl, otlpTracesUrl } from "../../../src/adapters/observability/otlp-url.js";
import { whenUnreachable } from "../../../src/adapters/observability/tracing/collector-probe.js";
import { OtelTracer } from "../../../src/adapters/observability/tracing/otel-tracer.js";
import {
  EXPORT_FAILURE_REPORT_INTERVAL_MS,
  failureReason,
  ReportingSpanExporter,
} from "../../../src/adapters/observability/tracing/reporting-span-exporter.js";
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

describe("the OTLP traces URL", () => {
  it.each([
    ["http://localhost:4317", "http://localhost:4317/v1/traces"],
    ["http://collector:4318/", "http://collector:4318/v1/traces"],
    ["https://otel.example.com", "https://otel.example.com/v1/traces"],
    ["http://collector:4318/v1/traces", "http://collector:4318/v1/traces"],
    ["http://collector:4318/custom/path", "http://collector:4318/custom/path"],
    ["http://collector:4318?tenant=a", "http://collector:4318/v1/traces?tenant=a"],
  ])("reads %s as %s", (endpoint, url) => {
    expect(otlpTracesUrl(endpoint)).toBe(url);
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

  it("are logged at warn once per interval with the spans lost, then recovery at info", async () => {
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    let now = 0;
    const inner = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces`, timeoutMillis: 2_000 });
    let succeed = false;
    const exporter = new ReportingSpanExporter(
      {
        export: (spans, done) =>
          succeed ? done({ code: ExportResultCode.SUCCESS }) : inner.export(spans, done),
        shutdown: () => inner.shutdown(),
      },
      { logger, target: "http://127.0.0.1/v1/traces", now: () => now },
    );
    const exportOnce = () =>
      new Promise<number>((done) => exporter.export([], (result) => done(result.code)));
    // An empty batch still makes a request, which the closed port refuses.
    expect(await exportOnce()).toBe(ExportResultCode.FAILED);
    now += 1_000;
    expect(await exportOnce()).toBe(ExportResultCode.FAILED);
    expect(lines.filter((line) => line.level === "warn")).toHaveLength(1);
    now += EXPORT_FAILURE_REPORT_INTERVAL_MS;
    await exportOnce();
    const warnings = lines.filter((line) => line.level === "warn");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]?.fields).toMatchObject({ reason: "ECONNREFUSED", lost_spans: 0 });
    succeed = true;
    await exportOnce();
    expect(lines.at(-1)).toMatchObject({ level: "info" });
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
  it("writes one JSON line per span with console export, in the trace it propagates", async () => {
    const written: string[] = [];
    const tracer = new OtelTracer(
      {
        serviceName: "svc",
        serviceVersion: "1.2.3",
        otlpUrl: null,
        consoleWrite: (line) => written.push(line),
        callerIds: false,
      },
      SILENT,
    );
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
      name: "mcp.tool.call add",
      service_name: "svc",
      status: { code: 2, message: "ToolTimeoutError" },
      attributes: {
        "mcp.server.id": "pool",
        "hangar.route.backend": "m1",
        "mcp.tool.name": "add",
        "mcp.tool.status": "failure",
        "error.type": "ToolTimeoutError",
      },
    });
    expect(line.attributes["enduser.id"]).toBeUndefined();
  });

  it("records caller ids only when asked to", async () => {
    const written: string[] = [];
    const tracer = new OtelTracer(
      {
        serviceName: "svc",
        serviceVersion: "1",
        otlpUrl: null,
        consoleWrite: (l) => written.push(l),
        callerIds: true,
      },
      SILENT,
    );
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
      "mcp.tenant.id": "t1",
      "session.id": "s1",
    });
  });

  it("ignores a malformed traceparent in the caller's _meta and starts a new trace", async () => {
    const tracer = new OtelTracer(
      { serviceName: "svc", serviceVersion: "1", otlpUrl: null, consoleWrite: () => {}, callerIds: false },
      SILENT,
    );
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
  });
});
