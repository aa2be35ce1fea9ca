import { loggableUrl, resolveOtlpUrl } from "../adapters/observability/otlp-url.js";
import type { TelemetryHealth } from "../adapters/observability/telemetry-health.js";
import type { Logger } from "../app/ports/logger.js";
import { NOOP_TRACER, type Tracer } from "../app/ports/tracer.js";
import type { OtelEnv } from "../config/otel-env.js";
import type { GatewayConfig } from "../config/schema.js";
import { VERSION } from "./version.js";

/** The gateway's tracer and how to flush it on stop. */
export interface Tracing {
  readonly tracer: Tracer;
  /**
   * Where spans go, as the start-up line names them: the OTLP endpoint in force (file, variables or
   * the protocol's default; no credentials) and its protocol; null while tracing is off or spans
   * are not exported over OTLP.
   */
  readonly exporting: { readonly endpoint: string; readonly protocol: string } | null;
  /** Flushes queued spans and metrics (bounded) and stops exporting. Idempotent. */
  stop(): Promise<void>;
}

/**
 * `observability.tracing` over the standard `OTEL_*` variables (`otel`; the file wins where it
 * writes a key, docs/tracing.md): the no-op tracer while tracing is off (`enabled: false`, or
 * `OTEL_SDK_DISABLED=true` with `enabled` unwritten; nothing is allocated per call, no header or
 * `_meta` key is added); otherwise spans exported over OTLP with the protocol of
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (unless `OTEL_TRACES_EXPORTER=none`), with `console_export` also as
 * JSON lines on stderr (stdout carries MCP in stdio mode), and the MCP duration metrics over
 * OTLP/HTTP. The providers are built here rather than by the SDK's `NodeSDK`, which registers them
 * globally: several gateways share one process in the tests, each with its own.
 */
export async function openTracing(
  config: GatewayConfig["observability"]["tracing"],
  otel: OtelEnv,
  deps: { logger: Logger; health: TelemetryHealth },
  consoleWrite: (line: string) => void = (line) => {
    process.stderr.write(line);
  },
): Promise<Tracing> {
  const { logger, health } = deps;
  if (!config.enabled) return { tracer: NOOP_TRACER, exporting: null, stop: async () => {} };
  if (config.jaeger_host !== undefined) {
    logger.warn(
      { jaeger_host: config.jaeger_host, jaeger_port: config.jaeger_port },
      "observability.tracing.jaeger_host and jaeger_port are not used: Jaeger ingests OTLP; point otlp_endpoint at its OTLP port",
    );
  }
  // The OpenTelemetry SDK loads only when tracing is on.
  const [{ OtelTracer }, { openOtlpSpanExporter }, { samplerNamed }, { CollectorGate }, probe, resources] =
    await Promise.all([
      import("../adapters/observability/tracing/otel-tracer.js"),
      import("../adapters/observability/tracing/otlp-exporters.js"),
      import("../adapters/observability/tracing/sampler.js"),
      import("../adapters/observability/tracing/collector-gate.js"),
      import("../adapters/observability/tracing/collector-probe.js"),
      import("@opentelemetry/resources"),
    ]);
  const resource = resources.defaultResource().merge(
    resources.resourceFromAttributes({
      ...otel.resourceAttributes,
      "service.name": config.service_name,
      "service.version": VERSION,
    }),
  );
  const tracesUrl = resolveOtlpUrl(
    config.otlp_endpoint,
    otel.traces.endpoint,
    otel.traces.protocol,
    "traces",
  );
  let otlp: { exporter: Awaited<ReturnType<typeof openOtlpSpanExporter>>; target: string } | null = null;
  if (otel.exporters.traces === "otlp") {
    const exporter = await openOtlpSpanExporter({
      protocol: otel.traces.protocol,
      url: tracesUrl,
      headers: otel.traces.headers,
      timeoutMs: otel.traces.timeoutMs,
    });
    const gated = new CollectorGate(exporter, { url: tracesUrl, now: () => performance.now() });
    otlp = { exporter: gated, target: loggableUrl(tracesUrl) };
  }
  const metrics = await openMetricsExport(config, otel, resource, deps);
  const tracer = new OtelTracer(
    {
      resource,
      serviceVersion: VERSION,
      sampler: samplerNamed(otel.sampler, otel.samplerRatio),
      otlp,
      consoleWrite: config.console_export || otel.exporters.traces === "console" ? consoleWrite : null,
      callerIds: config.caller_ids,
      meter: metrics?.meter ?? null,
      health,
      ...(otlp !== null && { unreachable: () => probe.whenUnreachable(tracesUrl) }),
    },
    logger,
  );
  logger.info(
    {
      endpoint: otlp?.target ?? null,
      protocol: otel.traces.protocol,
      sampler: otel.sampler,
      console_export: config.console_export,
      caller_ids: config.caller_ids,
      otel_metrics: metrics !== null,
    },
    "tracing: spans of requests and tool calls exported over OTLP",
  );
  return {
    tracer,
    exporting: otlp && { endpoint: otlp.target, protocol: otel.traces.protocol },
    stop: async () => {
      await Promise.all([
        tracer.shutdown(),
        metrics && flushBounded(metrics.shutdown(), probe.whenUnreachable(metrics.url)),
      ]);
    },
  };
}

/** Longest wait for the last metrics to be exported when the gateway stops. */
const METRICS_FLUSH_MS = 5_000;

/**
 * Waits for the last export at most {@link METRICS_FLUSH_MS}, and not at all once the collector
 * refuses a connection: the OTLP exporter retries a refused connection for its whole timeout.
 */
async function flushBounded(flush: Promise<void>, unreachable: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, METRICS_FLUSH_MS);
  });
  await Promise.race([flush, bound, unreachable]);
  clearTimeout(timer);
}

/** The OTel metrics export over OTLP in the metrics' protocol, or null with `OTEL_METRICS_EXPORTER=none`. */
async function openMetricsExport(
  config: GatewayConfig["observability"]["tracing"],
  otel: OtelEnv,
  resource: import("@opentelemetry/resources").Resource,
  deps: { logger: Logger; health: TelemetryHealth },
) {
  if (otel.exporters.metrics !== "otlp") return null;
  const [{ openOtelMetrics }, { openOtlpMetricExporter }] = await Promise.all([
    import("../adapters/observability/tracing/otel-metrics.js"),
    import("../adapters/observability/tracing/otlp-exporters.js"),
  ]);
  const url = resolveOtlpUrl(config.otlp_endpoint, otel.metrics.endpoint, otel.metrics.protocol, "metrics");
  const otlp = await openOtlpMetricExporter({
    protocol: otel.metrics.protocol,
    url,
    headers: otel.metrics.headers,
    timeoutMs: otel.metrics.timeoutMs,
  });
  const metrics = openOtelMetrics(
    { resource, otlp, intervalMs: otel.metricIntervalMs, target: loggableUrl(url) },
    deps,
  );
  return { ...metrics, url };
}
