import type { ExportResult } from "@opentelemetry/core";
import { ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../../app/ports/logger.js";

export interface ReportingDeps {
  readonly logger: Logger;
  /** Where spans go, as logs may show it (no credentials). */
  readonly target: string;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /** Called for each failed export (the composition counts them). */
  readonly onFailure?: () => void;
}

/**
 * Passes batches to an exporter and reports how exports go: the first failure is logged at `warn`
 * once, later ones are only counted (`onFailure`: a metric) until an export works again, which is
 * logged at `info` with the spans lost meanwhile. A collector that is down fails every batch; one
 * line per outage says it without flooding the log. The reason logged is an error code or an HTTP
 * status, never an error message (which may carry the URL and its credentials).
 */
export class ReportingSpanExporter implements SpanExporter {
  private failing = false;
  private lost = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly deps: ReportingDeps,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.succeeded();
      else this.failed(spans.length, result.error);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  private succeeded(): void {
    if (!this.failing) return;
    this.failing = false;
    this.deps.logger.info(
      { endpoint: this.deps.target, lost_spans: this.lost },
      "tracing: span export works again",
    );
    this.lost = 0;
  }

  private failed(count: number, error: Error | undefined): void {
    this.deps.onFailure?.();
    this.lost += count;
    if (this.failing) return;
    this.failing = true;
    this.deps.logger.warn(
      { endpoint: this.deps.target, reason: failureReason(error), lost_spans: count },
      "tracing: spans could not be exported (not repeated until export works again; see airlock_telemetry_export_failures_total)",
    );
  }
}

/** A short, safe reason: `HTTP 503`, `ECONNREFUSED`, or the error's class name. */
export function failureReason(error: Error | undefined): string {
  if (error === undefined) return "unknown";
  for (const candidate of [error, error.cause]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "number") return `HTTP ${code}`;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
  }
  return error.name;
}
