import { Counter, type Registry } from "prom-client";

export type TelemetrySignal = "traces" | "metrics" | "logs";

/** How the gateway's own telemetry export goes: what failed and what was lost. */
export interface TelemetryHealth {
  /** One export request (a batch) of `signal` failed. */
  exportFailed(signal: TelemetrySignal): void;
  /** Spans that never reach a collector: `queue_full` (the batch queue was full) or `export_failed`. */
  spansDropped(reason: "queue_full" | "export_failed", count: number): void;
}

/**
 * {@link TelemetryHealth} as Prometheus counters. Built before the gateway's metrics registry (the
 * tracer opens first) and added to it by {@link PromTelemetryHealth.register}; the series start at
 * zero so that a rate over them exists before the first failure.
 */
export class PromTelemetryHealth implements TelemetryHealth {
  private readonly failures = new Counter({
    name: "airlock_telemetry_export_failures_total",
    help: "OTLP export requests of the gateway's own telemetry that failed, by signal.",
    labelNames: ["signal"] as const,
    registers: [],
  });
  private readonly dropped = new Counter({
    name: "airlock_spans_dropped_total",
    help: "Spans that never reached a collector: the batch queue was full, or their export failed.",
    labelNames: ["reason"] as const,
    registers: [],
  });

  constructor() {
    for (const signal of ["traces", "metrics", "logs"]) this.failures.labels(signal).inc(0);
    for (const reason of ["queue_full", "export_failed"]) this.dropped.labels(reason).inc(0);
  }

  register(registry: Registry): void {
    registry.registerMetric(this.failures);
    registry.registerMetric(this.dropped);
  }

  exportFailed(signal: TelemetrySignal): void {
    this.failures.labels(signal).inc();
  }

  spansDropped(reason: "queue_full" | "export_failed", count: number): void {
    this.dropped.labels(reason).inc(count);
  }
}
