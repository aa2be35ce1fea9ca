import {
  type Attributes,
  isSpanContextValid,
  type Tracer as OtelApiTracer,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../../app/ports/logger.js";
import type { ToolCallSpan, ToolCallSpanStart, ToolCallStatus, Tracer } from "../../../app/ports/tracer.js";
import { loggableUrl } from "../otlp-url.js";
import { CollectorGate } from "./collector-gate.js";
import { whenUnreachable } from "./collector-probe.js";
import { JsonLineSpanExporter } from "./json-line-span-exporter.js";
import { ReportingSpanExporter } from "./reporting-span-exporter.js";

/**
 * Bound of one export request, retries included. Exports run off the call path; the bound keeps a
 * hung collector from holding the shutdown flush (and the batch queue) for long.
 */
const EXPORT_TIMEOUT_MS = 5_000;
/** Longest wait for the last spans to be flushed when the gateway stops. */
const SHUTDOWN_FLUSH_MS = 5_000;
/**
 * Spans kept while waiting for export (the SDK's default size). Past it new spans are dropped, so a
 * collector that is down costs bounded memory and nothing on the call path.
 */
const MAX_QUEUED_SPANS = 2_048;
/** Spans per export request and the longest wait before a partial batch is sent (SDK defaults). */
const MAX_BATCH = 512;
const BATCH_DELAY_MS = 5_000;

export interface OtelTracerSettings {
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** OTLP/HTTP (JSON) traces URL (`otlpTracesUrl`); null exports nowhere over OTLP. */
  readonly otlpUrl: string | null;
  /** `console_export`: receives one JSON line per span; null for none. */
  readonly consoleWrite: ((line: string) => void) | null;
  /** `caller_ids`: principal, tenant and session ids on spans. */
  readonly callerIds: boolean;
}

/** Reads `traceparent`/`tracestate` from a request's `_meta` (string values only). */
const META_GETTER: TextMapGetter<Readonly<Record<string, unknown>>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};

/**
 * The `Tracer` port over the OpenTelemetry SDK: a provider of its own (never registered globally,
 * so several gateways in one process keep their own), batch export over OTLP/HTTP and, with
 * `console_export`, as JSON lines. Contexts are passed explicitly: no context manager is needed and
 * nothing else in the process is instrumented.
 */
export class OtelTracer implements Tracer {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: OtelApiTracer;
  private readonly propagator = new W3CTraceContextPropagator();
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly settings: OtelTracerSettings,
    logger: Logger,
  ) {
    const exporters: SpanExporter[] = [];
    if (settings.otlpUrl !== null) {
      const otlp = new OTLPTraceExporter({ url: settings.otlpUrl, timeoutMillis: EXPORT_TIMEOUT_MS });
      const target = loggableUrl(settings.otlpUrl);
      const now = () => performance.now();
      const gated = new CollectorGate(otlp, { url: settings.otlpUrl, now });
      exporters.push(new ReportingSpanExporter(gated, { logger, target, now }));
    }
    if (settings.consoleWrite !== null) {
      const lines = new JsonLineSpanExporter(settings.consoleWrite);
      exporters.push(
        new ReportingSpanExporter(lines, { logger, target: "console", now: () => performance.now() }),
      );
    }
    this.provider = new BasicTracerProvider({
      resource: defaultResource().merge(
        resourceFromAttributes({
          "service.name": settings.serviceName,
          "service.version": settings.serviceVersion,
        }),
      ),
      // Set here rather than left to OTEL_* variables: the configuration file decides.
      sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      spanProcessors: exporters.map(
        (exporter) =>
          new BatchSpanProcessor(exporter, {
            maxQueueSize: MAX_QUEUED_SPANS,
            maxExportBatchSize: MAX_BATCH,
            scheduledDelayMillis: BATCH_DELAY_MS,
            exportTimeoutMillis: EXPORT_TIMEOUT_MS,
          }),
      ),
    });
    this.tracer = this.provider.getTracer("airlock", settings.serviceVersion);
  }

  startToolCall(start: ToolCallSpanStart): ToolCallSpan {
    const parent = start.parent
      ? this.propagator.extract(ROOT_CONTEXT, start.parent, META_GETTER)
      : ROOT_CONTEXT;
    const attributes: Attributes = {
      "mcp.server.id": start.target,
      "mcp.tool.name": start.tool,
      "mcp.call.id": start.callId,
    };
    if (this.settings.callerIds) {
      attributes["enduser.id"] = start.caller.id;
      if (start.caller.tenantId !== null) attributes["mcp.tenant.id"] = start.caller.tenantId;
      if (start.caller.sessionId !== undefined) attributes["session.id"] = start.caller.sessionId;
    }
    const span = this.tracer.startSpan(
      `mcp.tool.call ${start.tool}`,
      { kind: SpanKind.CLIENT, attributes },
      parent,
    );
    return new OtelToolCallSpan(span, traceContextOf(span));
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
      // A failed last export was reported by the exporter; stopping goes on. A collector that
      // refuses connections gets no wait at all (its spans are lost either way).
      const unreachable = this.settings.otlpUrl === null ? [] : [whenUnreachable(this.settings.otlpUrl)];
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

class OtelToolCallSpan implements ToolCallSpan {
  private ended = false;

  constructor(
    private readonly span: Span,
    readonly traceContext: Readonly<Record<string, string>> | undefined,
  ) {}

  routed(serverId: string): void {
    // The audit record's name for the server that served the call (the member, for a group).
    this.span.setAttribute("hangar.route.backend", serverId);
  }

  end(status: ToolCallStatus, details: { errorType?: string; toolError?: boolean } = {}): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttribute("mcp.tool.status", status);
    if (details.toolError) this.span.setAttribute("mcp.tool.is_error", true);
    if (status !== "success") {
      const errorType = details.errorType ?? "Error";
      this.span.setAttribute("error.type", errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    this.span.end();
  }
}
