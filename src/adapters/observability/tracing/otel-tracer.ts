import {
  type Attributes,
  type Context,
  type Histogram,
  isSpanContextValid,
  type Meter,
  type Tracer as OtelApiTracer,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../../app/ports/logger.js";
import type {
  HttpRequestSpan,
  HttpRequestSpanStart,
  McpRequestSpanStart,
  RequestOutcome,
  ToolCallSpan,
  ToolCallSpanStart,
  ToolCallStatus,
  Tracer,
} from "../../../app/ports/tracer.js";
import { activeSpans } from "../active-span.js";
import type { TelemetryHealth } from "../telemetry-health.js";
import { JsonLineSpanExporter } from "./json-line-span-exporter.js";
import { ReportingSpanExporter } from "./reporting-span-exporter.js";
import { selfObservingMeterProvider } from "./self-observing-meter.js";

/** Longest wait for the last spans to be flushed when the gateway stops. */
const SHUTDOWN_FLUSH_MS = 5_000;

export interface OtelTracerSettings {
  readonly resource: Resource;
  readonly serviceVersion: string;
  readonly sampler: Sampler;
  /** The OTLP exporter (wrapped by the composition: collector gate); null for none. */
  readonly otlp: { readonly exporter: SpanExporter; readonly target: string } | null;
  /** `console_export`: receives one JSON line per span; null for none. */
  readonly consoleWrite: ((line: string) => void) | null;
  /** `caller_ids`: principal, tenant and session ids on spans. */
  readonly callerIds: boolean;
  /** The meter of the OTel metrics (`mcp.*.operation.duration`); null when they are not exported. */
  readonly meter: Meter | null;
  /** Counts failed exports and dropped spans (Prometheus). */
  readonly health: TelemetryHealth;
  /** Resolves once the collector is known unreachable: the stop flush stops waiting then. */
  readonly unreachable?: () => Promise<void>;
}

/** Reads `traceparent`/`tracestate` from a request's `_meta` or headers (string values only). */
const CARRIER_GETTER: TextMapGetter<Readonly<Record<string, unknown>>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};

/** Histogram buckets of the MCP operation durations (seconds), as the conventions advise. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/**
 * The `Tracer` port over the OpenTelemetry SDK, following the semantic conventions for MCP and
 * HTTP: a provider of its own (never registered globally, so several gateways in one process keep
 * their own), batch export, and the request span active in an async context kept in
 * {@link activeSpans} (no global context manager: nothing else in the process is instrumented).
 */
export class OtelTracer implements Tracer {
  readonly enabled = true;
  private readonly provider: BasicTracerProvider;
  private readonly tracer: OtelApiTracer;
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly serverDuration: Histogram | null;
  private readonly clientDuration: Histogram | null;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly settings: OtelTracerSettings,
    logger: Logger,
  ) {
    const now = () => performance.now();
    const exporters: SpanExporter[] = [];
    if (settings.otlp !== null) {
      exporters.push(
        new ReportingSpanExporter(settings.otlp.exporter, {
          logger,
          target: settings.otlp.target,
          now,
          onFailure: () => settings.health.exportFailed("traces"),
        }),
      );
    }
    if (settings.consoleWrite !== null) {
      exporters.push(
        new ReportingSpanExporter(new JsonLineSpanExporter(settings.consoleWrite), {
          logger,
          target: "console",
          now,
          onFailure: () => settings.health.exportFailed("traces"),
        }),
      );
    }
    // The processor's own counts (spans it dropped: queue full, or an export that failed).
    const selfObs = selfObservingMeterProvider(settings.health);
    this.provider = new BasicTracerProvider({
      resource: settings.resource,
      sampler: settings.sampler,
      // Queue and batch sizes: the SDK's defaults, or OTEL_BSP_* where set.
      spanProcessors: exporters.map(
        (exporter) =>
          new BatchSpanProcessor(exporter, { selfObsMeterProvider: selfObs } as ConstructorParameters<
            typeof BatchSpanProcessor
          >[1]),
      ),
    });
    this.tracer = this.provider.getTracer("airlock", settings.serviceVersion);
    const histogram = (name: string, description: string) =>
      settings.meter?.createHistogram(name, {
        unit: "s",
        description,
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }) ?? null;
    this.serverDuration = histogram(
      "mcp.server.operation.duration",
      "MCP request duration as observed on the receiver, until the result is sent.",
    );
    this.clientDuration = histogram(
      "mcp.client.operation.duration",
      "MCP request duration as observed on the sender, until the response is received.",
    );
  }

  /** The active request span's context, else the one `carrier` names, else none. */
  private parentOf(carrier: Readonly<Record<string, unknown>> | undefined, preferCarrier: boolean): Context {
    const active = activeSpans.getStore()?.context as Context | undefined;
    if (
      carrier !== undefined &&
      (preferCarrier || active === undefined) &&
      typeof carrier.traceparent === "string"
    ) {
      const extracted = this.propagator.extract(ROOT_CONTEXT, carrier, CARRIER_GETTER);
      if (trace.getSpanContext(extracted) !== undefined) return extracted;
    }
    return active ?? ROOT_CONTEXT;
  }

  startToolCall(start: ToolCallSpanStart): ToolCallSpan {
    const attributes: Attributes = {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": start.tool,
      "gen_ai.operation.name": "execute_tool",
      "airlock.server.id": start.target,
      "airlock.call.id": start.callId,
    };
    if (this.settings.callerIds) {
      attributes["enduser.id"] = start.caller.id;
      if (start.caller.tenantId !== null) attributes["airlock.tenant.id"] = start.caller.tenantId;
      if (start.caller.sessionId !== undefined) attributes["mcp.session.id"] = start.caller.sessionId;
    }
    const span = this.tracer.startSpan(
      `tools/call ${start.tool}`,
      { kind: SpanKind.CLIENT, attributes },
      this.parentOf(start.parent, false),
    );
    return new OtelToolCallSpan(span, traceContextOf(span), this.clientDuration, start.tool);
  }

  startMcpRequest(start: McpRequestSpanStart): OtelRequestSpan {
    const attributes: Attributes = {
      "mcp.method.name": start.method,
      "network.transport": start.transport,
    };
    if (start.transport === "tcp") attributes["network.protocol.name"] = "http";
    if (start.method === "tools/call" && start.target !== undefined) {
      attributes["gen_ai.tool.name"] = start.target;
      attributes["gen_ai.operation.name"] = "execute_tool";
    }
    if (start.method === "prompts/get" && start.target !== undefined)
      attributes["gen_ai.prompt.name"] = start.target;
    if (start.resourceUri !== undefined) attributes["mcp.resource.uri"] = start.resourceUri;
    if (start.requestId !== undefined) attributes["jsonrpc.request.id"] = String(start.requestId);
    if (start.protocolVersion !== undefined) attributes["mcp.protocol.version"] = start.protocolVersion;
    if (this.settings.callerIds && start.sessionId !== undefined)
      attributes["mcp.session.id"] = start.sessionId;
    // `_meta` names the caller's span for this one request; an HTTP span (or the headers) covers
    // every message of the POST.
    const parent =
      start.meta !== undefined && typeof start.meta.traceparent === "string"
        ? this.parentOf(start.meta, true)
        : this.parentOf(start.headers, false);
    const name = start.target === undefined ? start.method : `${start.method} ${start.target}`;
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    const metricAttributes: Attributes = {
      "mcp.method.name": start.method,
      "network.transport": start.transport,
    };
    if (attributes["gen_ai.tool.name"] !== undefined) metricAttributes["gen_ai.tool.name"] = start.target;
    if (start.protocolVersion !== undefined) metricAttributes["mcp.protocol.version"] = start.protocolVersion;
    return new OtelRequestSpan(span, parent, this.serverDuration, metricAttributes);
  }

  startHttpRequest(start: HttpRequestSpanStart): HttpRequestSpan {
    const attributes: Attributes = {
      "http.request.method": start.method,
      "url.path": start.path,
    };
    if (start.route !== undefined) attributes["http.route"] = start.route;
    const name = start.route === undefined ? start.method : `${start.method} ${start.route}`;
    const parent = this.parentOf(start.headers, true);
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    return new OtelRequestSpan(span, parent, null, undefined);
  }

  /**
   * Flushes what is queued and stops exporting; waits at most {@link SHUTDOWN_FLUSH_MS}, and not at
   * all once the collector refuses a connection. Idempotent.
   */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
      });
      const unreachable = this.settings.unreachable ? [this.settings.unreachable()] : [];
      await Promise.race([this.provider.shutdown().catch(() => {}), bound, ...unreachable]);
      clearTimeout(timer);
    })();
    return this.stopping;
  }
}

/**
 * The W3C trace context naming the span as parent, what the propagator's `inject` writes for a
 * context holding it (`traceparent`, and `tracestate` when there is one), read off the span
 * directly instead of through a context made for the purpose.
 */
function traceContextOf(span: Span): Readonly<Record<string, string>> | undefined {
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return undefined;
  const { traceId, spanId, traceFlags, traceState } = context;
  const carrier: Record<string, string> = {
    traceparent: `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`,
  };
  if (traceState) carrier.tracestate = traceState.serialize();
  return carrier;
}

class OtelRequestSpan implements HttpRequestSpan {
  private ended = false;
  private readonly started = performance.now();
  private readonly active: { context: Context; trace_id: string; span_id: string };

  constructor(
    private readonly span: Span,
    parent: Context,
    private readonly duration: Histogram | null,
    private readonly metricAttributes: Attributes | undefined,
  ) {
    const { traceId, spanId } = span.spanContext();
    this.active = { context: trace.setSpan(parent, span), trace_id: traceId, span_id: spanId };
  }

  run<T>(fn: () => T): T {
    return activeSpans.run(this.active, fn);
  }

  end(outcome: RequestOutcome = {}): void {
    if (this.ended) return;
    this.ended = true;
    if (outcome.rpcCode !== undefined)
      this.span.setAttribute("rpc.response.status_code", String(outcome.rpcCode));
    if (outcome.errorType !== undefined) {
      this.span.setAttribute("error.type", outcome.errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorType });
    }
    this.span.end();
    if (this.duration !== null) {
      const attributes =
        outcome.errorType === undefined
          ? this.metricAttributes
          : { ...this.metricAttributes, "error.type": outcome.errorType };
      this.duration.record((performance.now() - this.started) / 1000, attributes);
    }
  }

  endHttp(statusCode: number): void {
    if (this.ended) return;
    this.span.setAttribute("http.response.status_code", statusCode);
    // A server span is an error for a 5xx only (HTTP conventions): a 4xx is the caller's.
    this.end(statusCode >= 500 ? { errorType: String(statusCode) } : {});
  }
}

class OtelToolCallSpan implements ToolCallSpan {
  private ended = false;
  private readonly started = performance.now();

  constructor(
    private readonly span: Span,
    readonly traceContext: Readonly<Record<string, string>> | undefined,
    private readonly duration: Histogram | null,
    private readonly tool: string,
  ) {}

  routed(serverId: string): void {
    // The audit record's name for the server that served the call (the member, for a group).
    this.span.setAttribute("airlock.route.backend", serverId);
  }

  end(status: ToolCallStatus, details: { errorType?: string; toolError?: boolean } = {}): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute("airlock.tool.status", status);
    const errorType =
      status !== "success" ? (details.errorType ?? "Error") : details.toolError ? "tool_error" : undefined;
    if (errorType !== undefined) {
      this.span.setAttribute("error.type", errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    this.span.end();
    if (this.duration !== null) {
      const attributes: Attributes = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": this.tool,
        "gen_ai.operation.name": "execute_tool",
      };
      if (errorType !== undefined) attributes["error.type"] = errorType;
      this.duration.record((performance.now() - this.started) / 1000, attributes);
    }
  }
}
