import type { AuditRecord } from "./audit-trail.js";

/**
 * The compliance (SIEM) export of audit records (`MCP_COMPLIANCE_FORMAT`, `MCP_COMPLIANCE_OUTPUT`).
 *
 * Guaranteed: `write` formats every record of the batch and writes them in order, as one append;
 * it rejects when the output cannot be written (nothing of the batch is then known to be written).
 * Not guaranteed: durability beyond the operating system's buffers; exactly-once delivery (a batch
 * retried after a partial write may repeat lines).
 */
export interface ComplianceExporter {
  /** `cef`, `json-lines`, `leef`, `syslog`, or `otlp` for the audit log export. */
  readonly format: string;
  /** Where records go: a file, the process's standard error, or an OTLP collector. */
  readonly destination: "file" | "stderr" | "otlp";
  write(records: readonly AuditRecord[]): Promise<void>;
}

/** The `compliance_export` field of `gateway_health`. */
export interface ComplianceExportStatus {
  /** `degraded` while the last write failed; calls are never refused for it. */
  status: "ok" | "degraded";
  format: string;
  destination: "file" | "stderr" | "otlp";
  records_written: number;
  /** Batches whose write failed since the start (their records are kept and retried). */
  write_failures: number;
  /** Records dropped because the output stayed unwritable while too many were pending. */
  records_dropped: number;
  /** Epoch seconds of the last failed write; null when none failed. */
  last_failure_at: number | null;
  /** The error code of the last failure (`EACCES`, `ENOSPC`, ...), never a path or message. */
  last_error: string | null;
}
