import type { AuditRecord } from "../../app/ports/audit-trail.js";
import type { ComplianceExporter } from "../../app/ports/compliance-export.js";
import { postJson } from "../net/post-json.js";

/** Records per export request: a burst is sent in requests a collector accepts (well under 4 MiB). */
const RECORDS_PER_REQUEST = 512;
/** A collector that does not answer within this long fails the write (the records are kept). */
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

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number };

interface KeyValue {
  key: string;
  value: AnyValue;
}

/**
 * Exports audit records as OTLP log records over OTLP/HTTP in the JSON encoding
 * (`observability.audit.otlp_endpoint`). Each record is one log record: its time, a severity from
 * its outcome (INFO for a success, WARN for a failure or a denial), the body `<action> <outcome>`,
 * and attributes for every field of the record (`audit.*`) and of its details as written. A write
 * fails, keeping the batch for the next one, when the collector cannot be reached, does not answer
 * within 10 s, redirects, or answers other than 2xx; the failure's code is `timeout`, the network
 * error's (`unreachable` when it has none) or `http_<status>`, never the URL.
 */
export class OtlpAuditLogExporter implements ComplianceExporter {
  readonly format = "otlp";
  readonly destination = "otlp" as const;
  private readonly url: string;
  private readonly headers: Record<string, string> = {};

  /**
   * `url` may carry credentials (`http://user:secret@collector:4318/v1/logs`): they are sent as
   * HTTP basic authentication, since `fetch` refuses a URL that holds them.
   */
  constructor(
    url: string,
    private readonly resource: AuditLogResource,
    private readonly now: () => number = Date.now,
  ) {
    const parsed = new URL(url);
    if (parsed.username !== "" || parsed.password !== "") {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
      parsed.username = "";
      parsed.password = "";
    }
    this.url = parsed.href;
  }

  async write(records: readonly AuditRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += RECORDS_PER_REQUEST) {
      await this.post(records.slice(start, start + RECORDS_PER_REQUEST));
    }
  }

  private async post(records: readonly AuditRecord[]): Promise<void> {
    const body = JSON.stringify(otlpLogs(records, this.resource, this.now()));
    const outcome = await postJson(this.url, body, { headers: this.headers, timeoutMs: REQUEST_TIMEOUT_MS });
    if ("failure" in outcome) throw withCode("OTLP log export failed", outcome.failure);
    if (outcome.status < 200 || outcome.status >= 300) {
      throw withCode("OTLP log export refused", `http_${outcome.status}`);
    }
  }
}

/** The `ExportLogsServiceRequest` of some audit records, in the OTLP JSON encoding. */
export function otlpLogs(records: readonly AuditRecord[], resource: AuditLogResource, nowMs: number) {
  const observed = nanos(nowMs / 1000);
  return {
    resourceLogs: [
      {
        resource: {
          attributes: [
            attribute("service.name", resource.serviceName),
            attribute("service.version", resource.serviceVersion),
            attribute("service.instance.id", resource.instanceId),
          ],
        },
        scopeLogs: [
          {
            scope: { name: "airlock.audit", version: resource.serviceVersion },
            logRecords: records.map((record) => logRecord(record, observed)),
          },
        ],
      },
    ],
  };
}

function logRecord(record: AuditRecord, observedTimeUnixNano: string) {
  const severity = Object.hasOwn(SEVERITY, record.outcome)
    ? SEVERITY[record.outcome as keyof typeof SEVERITY]
    : SEVERITY.failure;
  const attributes: KeyValue[] = [
    attribute("audit.id", record.id),
    attribute("audit.action", record.action),
    attribute("audit.actor", record.actor),
    attribute("audit.target", record.target),
    attribute("audit.outcome", record.outcome),
  ];
  if (record.tenant_id !== null) attributes.push(attribute("audit.tenant_id", record.tenant_id));
  for (const [key, value] of Object.entries(record.details)) {
    if (value !== undefined && value !== null) attributes.push(attribute(key, value));
  }
  return {
    timeUnixNano: nanos(record.occurred_at),
    observedTimeUnixNano,
    severityNumber: severity.number,
    severityText: severity.text,
    body: { stringValue: `${record.action} ${record.outcome}` },
    attributes,
  };
}

function attribute(key: string, value: unknown): KeyValue {
  return { key, value: anyValue(value) };
}

function anyValue(value: unknown): AnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return { intValue: String(value) };
    // JSON has no NaN or infinity: those go as their names.
    return Number.isFinite(value) ? { doubleValue: value } : { stringValue: String(value) };
  }
  return { stringValue: JSON.stringify(value) };
}

/** Epoch seconds (fractional, microsecond precision) as the decimal string of nanoseconds. */
function nanos(seconds: number): string {
  return (BigInt(Math.round(seconds * 1_000_000)) * 1000n).toString();
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(`${message} (${code})`), { code });
}
