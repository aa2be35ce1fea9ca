import type { HrTime } from "@opentelemetry/api";
import type { AnyValue, Logger as LogsLogger } from "@opentelemetry/api-logs";
import { ExportResultCode } from "@opentelemetry/core";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, type ReadableLogRecord, type ReadWriteLogRecord } from "@opentelemetry/sdk-logs";
import type { AuditRecord } from "../../app/ports/audit-trail.js";
import type { ComplianceExporter } from "../../app/ports/compliance-export.js";

/** Records per export request: a burst is sent in requests a collector accepts (well under 4 MiB). */
const RECORDS_PER_REQUEST = 512;
/** A collector that does not answer within this long (retries included) fails the write (the records are kept). */
const REQUEST_TIMEOUT_MS = 10_000;

/** OTLP severity numbers (logs data model): INFO and WARN. */
const SEVERITY = {
  success: { number: 9, text: "INFO" },
  failure: { number: 13, text: "WARN" },
  denied: { number: 13, text: "WARN" },
} as const;

/** What every exported record says about its producer (the OTLP resource). */
export interface AuditLogResource {
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** This replica's instance id. */
  readonly instanceId: string;
}

/**
 * Exports audit records as OTLP log records over OTLP/HTTP in the JSON encoding
 * (`observability.audit.otlp_endpoint`), through the OpenTelemetry logs SDK and its OTLP/HTTP
 * exporter. Each record is one log record: its time, a severity from its outcome (INFO for a
 * success, WARN for a failure or a denial), the body `<action> <outcome>`, and attributes for every
 * field of the record (`audit.*`) and of its details as written (an object or a list as its JSON
 * text). A write fails, keeping the batch for the next one, when the collector cannot be reached,
 * does not answer within 10 s (the exporter's retries of a 429 or 5xx included), or refuses; the
 * failure's code is `timeout`, the network error's (`unreachable` when it has none) or
 * `http_<status>`, never the URL.
 */
export class OtlpAuditLogExporter implements ComplianceExporter {
  readonly format = "otlp";
  readonly destination = "otlp" as const;
  private readonly exporter: OTLPLogExporter;
  private readonly provider: LoggerProvider;
  private readonly logger: LogsLogger;
  /** What the logger emitted since the last take: the log records of one request. */
  private emitted: ReadWriteLogRecord[] = [];

  /**
   * `url` may carry credentials (`http://user:secret@collector:4318/v1/logs`): they are sent as
   * HTTP basic authentication, since `fetch` refuses a URL that holds them.
   */
  constructor(
    url: string,
    resource: AuditLogResource,
    private readonly now: () => number = Date.now,
  ) {
    const parsed = new URL(url);
    const headers: Record<string, string> = {};
    if (parsed.username !== "" || parsed.password !== "") {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
      parsed.username = "";
      parsed.password = "";
    }
    this.exporter = new OTLPLogExporter({ url: parsed.href, headers, timeoutMillis: REQUEST_TIMEOUT_MS });
    // The records are exported by `write` itself (its promise tells the recorder how it went), so
    // the processor only hands them over.
    const handOver = {
      onEmit: (record: ReadWriteLogRecord) => {
        this.emitted.push(record);
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    this.provider = new LoggerProvider({
      resource: resourceFromAttributes({
        "service.name": resource.serviceName,
        "service.version": resource.serviceVersion,
        "service.instance.id": resource.instanceId,
      }),
      processors: [handOver],
    });
    this.logger = this.provider.getLogger("airlock.audit", resource.serviceVersion);
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += RECORDS_PER_REQUEST) {
      await this.post(records.slice(start, start + RECORDS_PER_REQUEST));
    }
  }

  private post(records: readonly AuditRecord[]): Promise<void> {
    const observed = hrTimeOf(this.now() / 1000);
    this.emitted = [];
    for (const record of records) this.emit(record, observed);
    const batch: ReadableLogRecord[] = this.emitted;
    this.emitted = [];
    return new Promise<void>((resolve, reject) => {
      this.exporter.export(batch, (result) => {
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(withCode("OTLP log export failed", codeOf(result.error)));
      });
    });
  }

  private emit(record: AuditRecord, observed: HrTime): void {
    const severity = Object.hasOwn(SEVERITY, record.outcome)
      ? SEVERITY[record.outcome as keyof typeof SEVERITY]
      : SEVERITY.failure;
    const attributes: Record<string, AnyValue> = {
      "audit.id": record.id,
      "audit.action": record.action,
      "audit.actor": record.actor,
      "audit.target": record.target,
      "audit.outcome": record.outcome,
    };
    if (record.tenant_id !== null) attributes["audit.tenant_id"] = record.tenant_id;
    for (const [key, value] of Object.entries(record.details)) {
      if (value !== undefined && value !== null) attributes[key] = attributeValue(value);
    }
    this.logger.emit({
      timestamp: hrTimeOf(record.occurred_at),
      observedTimestamp: observed,
      severityNumber: severity.number,
      severityText: severity.text,
      body: `${record.action} ${record.outcome}`,
      attributes,
    });
  }
}

function attributeValue(value: unknown): AnyValue {
  if (typeof value === "string" || typeof value === "boolean") return value;
  // JSON has no NaN or infinity: those go as their names.
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  return JSON.stringify(value);
}

/**
 * Epoch seconds (fractional, microsecond precision) as seconds and nanoseconds: the microseconds
 * of a record's time are kept exactly (a double of nanoseconds would not keep them).
 */
function hrTimeOf(seconds: number): HrTime {
  const micros = Math.round(seconds * 1_000_000);
  return [Math.floor(micros / 1_000_000), (micros % 1_000_000) * 1000];
}

/** `http_<status>`, `timeout`, the network error's code, or `unreachable`. */
function codeOf(error: Error | undefined): string {
  for (const candidate of [error, error?.cause]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "number") return `http_${code}`;
    if (typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code)) return code;
  }
  if (error !== undefined && /timeout/i.test(`${error.name} ${error.message}`)) return "timeout";
  return "unreachable";
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(`${message} (${code})`), { code });
}
