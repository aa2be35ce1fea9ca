import { loggableUrl, otlpTracesUrl } from "../adapters/observability/otlp-url.js";
import type { Logger } from "../app/ports/logger.js";
import { NOOP_TRACER, type Tracer } from "../app/ports/tracer.js";
import type { GatewayConfig } from "../config/schema.js";
import { VERSION } from "./version.js";

/** The gateway's tracer and how to flush it on stop. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Flushes queued spans (bounded) and stops exporting. Idempotent. */
  stop(): Promise<void>;
}

/**
 * `observability.tracing`: the no-op tracer while `enabled` is false (nothing is allocated per call,
 * no header or `_meta` key is added), otherwise spans exported over OTLP/HTTP to `otlp_endpoint`
 * (`otlpTracesUrl` tells the path rule) and, with `console_export`, as JSON lines on stderr (stdout
 * carries MCP in stdio mode). `jaeger_host`/`jaeger_port` are accepted and not used: Jaeger ingests
 * OTLP, so a set `jaeger_host` is reported once at startup.
 */
export async function openTracing(
  config: GatewayConfig["observability"]["tracing"],
  logger: Logger,
  consoleWrite: (line: string) => void = (line) => {
    process.stderr.write(line);
  },
): Promise<Tracing> {
  if (!config.enabled) return { tracer: NOOP_TRACER, stop: async () => {} };
  if (config.jaeger_host !== undefined) {
    logger.warn(
      { jaeger_host: config.jaeger_host, jaeger_port: config.jaeger_port },
      "observability.tracing.jaeger_host and jaeger_port are not used: Jaeger ingests OTLP; point otlp_endpoint at its OTLP/HTTP port (4318)",
    );
  }
  const otlpUrl = otlpTracesUrl(config.otlp_endpoint);
  // The OpenTelemetry SDK loads only when tracing is on.
  const { OtelTracer } = await import("../adapters/observability/tracing/otel-tracer.js");
  const tracer = new OtelTracer(
    {
      serviceName: config.service_name,
      serviceVersion: VERSION,
      otlpUrl,
      consoleWrite: config.console_export ? consoleWrite : null,
      callerIds: config.caller_ids,
    },
    logger,
  );
  logger.info(
    { endpoint: loggableUrl(otlpUrl), console_export: config.console_export, caller_ids: config.caller_ids },
    "tracing: spans of tool calls exported over OTLP/HTTP",
  );
  return { tracer, stop: () => tracer.shutdown() };
}
