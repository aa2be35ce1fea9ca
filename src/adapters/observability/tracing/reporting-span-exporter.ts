import type { ExportResult } from "@opentelemetry/core";
import { ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../../../app/ports/logger.js";

/**
 * Fewest milliseconds between two warnings about failed exports. A collector that is down fails
 * every batch (one every few seconds under load); one line a minute, with the count of spans lost
 * since the last one, says the same without flooding the log.
 */
export const EXPORT_FAILURE_REPORT_INTERVAL_MS = 60_000;

export interface ReportingDeps {
  readonly logger: Logger;
  /** Where spans go, as logs may show it (no credentials). */
  readonly target: string;
  /** Monotonic milliseconds. */
  readonly now: () => number;
}

/**
 * Passes batches to an exporter and reports how exports go: a failure is logged at `warn` at once,
 * then at most once per {@link EXPORT_FAILURE_REPORT_INTERVAL_MS} with the spans lost meanwhile;
 * the first success after failures is logged at `info`. The reason logged is an error code or an
 * HTTP status, never an error message (which may carry the URL and its credentials).
 */
export class ReportingSpanExporter implements SpanExporter {
  private failing = false;
  private lost = 0;
  private lastReport = Number.NEGATIVE_INFINITY;

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
    this.deps.logger.info({ endpoint: this.deps.target }, "tracing: span export works again");
  }

  private failed(count: number, error: Error | undefined): void {
    this.failing = true;
    this.lost += count;
    const now = this.deps.now();
    if (now - this.lastReport < EXPORT_FAILURE_REPORT_INTERVAL_MS) return;
    this.lastReport = now;
    this.deps.logger.warn(
      { endpoint: this.deps.target, reason: failureReason(error), lost_spans: this.lost },
      "tracing: spans could not be exported (reported at most once a minute)",
    );
    this.lost = 0;
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
