import type { Meter } from "@opentelemetry/api";
import { ExportResultCode } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import type { Logger } from "../../../app/ports/logger.js";
import type { TelemetryHealth } from "../telemetry-health.js";
import { failureReason } from "./reporting-span-exporter.js";

export interface OtelMetricsSettings {
  readonly resource: Resource;
  /** The OTLP exporter of the metrics' protocol (`openOtlpMetricExporter`). */
  readonly otlp: PushMetricExporter;
  /** `OTEL_METRIC_EXPORT_INTERVAL` (the SDK's default: 60 s). */
  readonly intervalMs: number;
  /** Where the URL is, as logs may show it. */
  readonly target: string;
}

/**
 * The OpenTelemetry metrics of the MCP conventions (`mcp.server.operation.duration`,
 * `mcp.client.operation.duration`), exported over OTLP (the protocol's exporter) beside the Prometheus endpoint: a meter
 * provider of its own (never global). A failed export is warned once, then counted, until one works.
 */
export function openOtelMetrics(
  settings: OtelMetricsSettings,
  deps: { logger: Logger; health: TelemetryHealth },
): { meter: Meter; shutdown(): Promise<void> } {
  const { otlp } = settings;
  let failing = false;
  const exporter: PushMetricExporter = {
    export: (metrics, done) =>
      otlp.export(metrics, (result) => {
        if (result.code === ExportResultCode.SUCCESS) {
          if (failing) deps.logger.info({ endpoint: settings.target }, "metrics: OTLP export works again");
          failing = false;
        } else {
          deps.health.exportFailed("metrics");
          if (!failing) {
            deps.logger.warn(
              { endpoint: settings.target, reason: failureReason(result.error) },
              "metrics: OTLP export failed (not repeated until it works again; see airlock_telemetry_export_failures_total)",
            );
          }
          failing = true;
        }
        done(result);
      }),
    forceFlush: () => otlp.forceFlush(),
    shutdown: () => otlp.shutdown(),
    ...(otlp.selectAggregationTemporality && {
      selectAggregationTemporality: otlp.selectAggregationTemporality.bind(otlp),
    }),
  };
  const provider = new MeterProvider({
    resource: settings.resource,
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: settings.intervalMs })],
  });
  return { meter: provider.getMeter("airlock"), shutdown: () => provider.shutdown().catch(() => {}) };
}
