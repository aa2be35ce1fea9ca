import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { isReachable } from "./collector-probe.js";
import { failureReason } from "./reporting-span-exporter.js";

/** Fewest milliseconds between two connection attempts to a collector found unreachable. */
export const COLLECTOR_PROBE_INTERVAL_MS = 5_000;

/** Failures that say nothing listens at the collector's address (rather than that it refused the spans). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

export interface CollectorGateDeps {
  /** The collector's URL, probed with a TCP connection. */
  readonly url: string;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /** Whether the collector accepts a connection now (tests pass their own). */
  readonly probe?: (url: string) => Promise<boolean>;
}

/**
 * Stops encoding spans for a collector that cannot be reached. Once an export fails because the
 * connection was refused or the host is unknown, later batches fail at once, as lost, without
 * being encoded or sent (about half of what tracing cost per call, for spans that could not
 * arrive); a TCP connection is tried at most every {@link COLLECTOR_PROBE_INTERVAL_MS}, and once
 * one succeeds batches go to the collector again. Any other failure (an HTTP status, a timeout)
 * changes nothing: the next batch is sent as usual.
 */
export class CollectorGate implements SpanExporter {
  /** Why the collector is taken for unreachable; undefined while batches go to it. */
  private unreachable: Error | undefined;
  private lastProbe = Number.NEGATIVE_INFINITY;
  private probing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly deps: CollectorGateDeps,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const error = this.unreachable;
    if (error !== undefined) {
      this.probeNow();
      done({ code: ExportResultCode.FAILED, error });
      return;
    }
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && UNREACHABLE.has(failureReason(result.error))) {
        this.unreachable = result.error;
        this.lastProbe = this.deps.now();
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }

  private probeNow(): void {
    const now = this.deps.now();
    if (this.probing || now - this.lastProbe < COLLECTOR_PROBE_INTERVAL_MS) return;
    this.probing = true;
    this.lastProbe = now;
    void (this.deps.probe ?? isReachable)(this.deps.url)
      .catch(() => false)
      .then((reachable) => {
        this.probing = false;
        if (reachable) this.unreachable = undefined;
      });
  }
}
