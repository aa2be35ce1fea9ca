import { invocationRecord } from "../audit-recorder.js";
import { BatchedWriter } from "../batched-writer.js";
import type { EventBus } from "../event-bus.js";
import type { AuditRecord } from "../ports/audit-trail.js";
import type { Clock } from "../ports/clock.js";
import type { ComplianceExporter, ComplianceExportStatus } from "../ports/compliance-export.js";
import type { Logger } from "../ports/logger.js";

/**
 * Exports the audit record of every tool invocation this replica ran to an exporter (the
 * compliance output, the OTLP audit log export), in batches off the call path. A failed write is
 * counted and degrades `status()`; the records are kept for the next write (up to `MAX_PENDING`);
 * calls are never refused for it.
 */
export class ComplianceRecorder {
  private readonly writer: BatchedWriter<AuditRecord>;
  private unsubscribe: (() => void) | null = null;
  private readonly state: ComplianceExportStatus;

  constructor(
    private readonly deps: {
      bus: EventBus;
      exporter: ComplianceExporter;
      clock: Clock;
      logger: Logger;
      /** Names the export in its log lines; default `compliance export`. */
      label?: string;
    },
  ) {
    this.state = {
      status: "ok",
      format: deps.exporter.format,
      destination: deps.exporter.destination,
      records_written: 0,
      write_failures: 0,
      records_dropped: 0,
      last_failure_at: null,
      last_error: null,
    };
    this.writer = new BatchedWriter<AuditRecord>({
      write: (batch) => deps.exporter.write(batch),
      onWritten: (count) => {
        this.state.records_written += count;
        this.state.status = "ok";
      },
      onFailed: (error, count) => {
        this.state.status = "degraded";
        this.state.write_failures++;
        this.state.last_failure_at = deps.clock.now() / 1000;
        this.state.last_error = errorCode(error);
        deps.logger.error(
          { code: this.state.last_error, records: count },
          `${deps.label ?? "compliance export"} not written; records kept for the next write`,
        );
      },
      onDropped: (count) => {
        this.state.records_dropped += count;
      },
      // Retried by this timer; records that come meanwhile wait for it, so that an output that
      // failed is not tried again on every record.
      retryDelayMs: RETRY_DELAY_MS,
    });
  }

  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => {
      const record = invocationRecord(event);
      if (record) this.writer.push(record);
    });
  }

  status(): ComplianceExportStatus {
    return { ...this.state };
  }

  /** Writes what is pending; resolves when done (a failure is counted and the records kept). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.writer.close();
  }
}

/** A failed output is written again this long after the failure; records that come meanwhile wait. */
const RETRY_DELAY_MS = 5_000;

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "write_failed";
}
