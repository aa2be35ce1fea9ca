import type { AuditRecord } from "../../app/ports/audit-trail.js";

/**
 * Line formats of the compliance (SIEM) export, one line per audit record of a tool invocation.
 * Field names follow spec 2 §6: the member that served a group call is CEF `flexString1`, LEEF and
 * syslog `routeBackend`, JSON lines `route_backend`; a refused call is `ToolInvocationDenied`
 * (CEF signature, LEEF event id and syslog MSGID 103).
 */
export type ComplianceLineFormat = "cef" | "json-lines" | "leef" | "syslog";

export interface Product {
  vendor: string;
  product: string;
  version: string;
  /** Syslog HOSTNAME. */
  hostname: string;
  /** Syslog PROCID. */
  pid: number;
}

/** Event type, id and severities of each tool-invocation outcome. */
const OUTCOMES = {
  success: { type: "ToolInvocationCompleted", id: "101", cef: 3, syslog: 6 },
  failure: { type: "ToolInvocationFailed", id: "102", cef: 5, syslog: 5 },
  denied: { type: "ToolInvocationDenied", id: "103", cef: 7, syslog: 4 },
} as const;
/** Syslog facility 13, "log audit" (RFC 5424 §6.2.1). */
const SYSLOG_FACILITY = 13;
/** SD-ID of the structured data: enterprise number 32473, reserved for documentation (RFC 5612). */
const SD_ID = "airlock@32473";

/** The fields every format carries, read from the audit record. */
interface Fields {
  outcome: (typeof OUTCOMES)[keyof typeof OUTCOMES];
  status: string;
  time: Date;
  id: string;
  user: string;
  tenant: string | null;
  server: string;
  backend: string;
  tool: string;
  callId: string;
  durationMs: number | null;
  errorType: string | null;
}

function fieldsOf(record: AuditRecord): Fields {
  const details = record.details;
  const status = record.outcome === "success" || record.outcome === "denied" ? record.outcome : "failure";
  const text = (key: string, fallback: string) =>
    typeof details[key] === "string" ? (details[key] as string) : fallback;
  return {
    outcome: OUTCOMES[status],
    status,
    time: new Date(Math.round(record.occurred_at * 1000)),
    id: record.id,
    user: record.actor,
    tenant: record.tenant_id,
    server: text("mcp.server.id", record.target),
    backend: text("hangar.route.backend", record.target),
    tool: text("mcp.tool.name", ""),
    callId: text("call_id", ""),
    durationMs: typeof details.duration_ms === "number" ? details.duration_ms : null,
    errorType: typeof details.error_type === "string" ? details.error_type : null,
  };
}

export function formatRecord(format: ComplianceLineFormat, record: AuditRecord, product: Product): string {
  const fields = fieldsOf(record);
  switch (format) {
    case "cef":
      return cef(fields, product);
    case "leef":
      return leef(fields, product);
    case "syslog":
      return syslog(fields, product);
    case "json-lines":
      return jsonLine(fields);
  }
}

/** ArcSight CEF:0; header `|` and `\` escaped, extension `=`, `\` and line breaks escaped. */
function cef(f: Fields, p: Product): string {
  const header = [
    "CEF:0",
    p.vendor,
    p.product,
    p.version,
    f.outcome.id,
    f.outcome.type,
    String(f.outcome.cef),
  ].map((value, index) => (index === 0 ? value : cefHeader(value)));
  const extension: [string, string | number | null][] = [
    ["rt", f.time.getTime()],
    ["externalId", f.id],
    ["act", "tool_invocation"],
    ["outcome", f.status],
    ["suser", f.user],
    ["cs1Label", "mcpServerId"],
    ["cs1", f.server],
    ["cs2Label", "mcpToolName"],
    ["cs2", f.tool],
    ["cs3Label", "callId"],
    ["cs3", f.callId],
    ["cs4Label", "tenantId"],
    ["cs4", f.tenant],
    ["cs5Label", "errorType"],
    ["cs5", f.errorType],
    ["cn1Label", "durationMs"],
    ["cn1", f.durationMs],
    ["flexString1Label", "routeBackend"],
    ["flexString1", f.backend],
  ];
  const pairs = present(extension).map(([key, value]) => `${key}=${cefValue(String(value))}`);
  return `${header.join("|")}|${pairs.join(" ")}`;
}

function cefHeader(value: string): string {
  return value.replace(/[\\|]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ");
}

function cefValue(value: string): string {
  return value
    .replace(/[\\=]/g, (c) => `\\${c}`)
    .replace(/\r/g, "\\r")
    .replace(/\n/g, "\\n");
}

/** IBM QRadar LEEF 1.0: tab-separated `key=value` attributes; tabs and line breaks in values become spaces. */
function leef(f: Fields, p: Product): string {
  const header = ["LEEF:1.0", p.vendor, p.product, p.version, f.outcome.id]
    .map((value, index) => (index === 0 ? value : cefHeader(value)))
    .join("|");
  const attributes: Attribute[] = [
    ["devTime", f.time.toISOString()],
    ["devTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSX"],
    ["cat", "tool_invocation"],
    ["sev", f.outcome.cef],
    ...recordAttributes(f, "usrName", "externalId"),
  ];
  const pairs = present(attributes).map(
    ([key, value]) => `${key}=${String(value).replace(/[\t\r\n]+/g, " ")}`,
  );
  return `${header}|${pairs.join("\t")}`;
}

/** RFC 5424: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [SD] MSG`. */
function syslog(f: Fields, p: Product): string {
  const pri = SYSLOG_FACILITY * 8 + f.outcome.syslog;
  const sd = present(recordAttributes(f, "user", "recordId"))
    .map(([name, value]) => `${name}="${sdValue(String(value))}"`)
    .join(" ");
  const message = `tool_invocation ${f.status} ${f.server}.${f.tool}`.replace(/[\r\n]+/g, " ");
  return [
    `<${pri}>1`,
    f.time.toISOString(),
    headerToken(p.hostname, 255),
    headerToken(p.product.toLowerCase().replace(/\s+/g, "-"), 48),
    headerToken(String(p.pid), 128),
    f.outcome.id,
    `[${SD_ID} ${sd}]`,
    message,
  ].join(" ");
}

type Attribute = [string, string | number | null];

/** The fields of a record as LEEF attributes and syslog structured data name them alike. */
function recordAttributes(f: Fields, userKey: string, idKey: string): Attribute[] {
  return [
    ["eventType", f.outcome.type],
    [userKey, f.user],
    ["tenantId", f.tenant],
    ["mcpServerId", f.server],
    ["routeBackend", f.backend],
    ["toolName", f.tool],
    ["status", f.status],
    ["callId", f.callId],
    ["durationMs", f.durationMs],
    ["errorType", f.errorType],
    [idKey, f.id],
  ];
}

/** Attributes with a value: null and empty ones are left out. */
function present(attributes: readonly Attribute[]): Attribute[] {
  return attributes.filter(([, value]) => value !== null && value !== "");
}

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped in PARAM-VALUE. */
function sdValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ");
}

/** A header field: printable US-ASCII without spaces, at most `max` characters, `-` when empty. */
function headerToken(value: string, max: number): string {
  const token = value.replace(/[^\x21-\x7e]/g, "").slice(0, max);
  return token.length > 0 ? token : "-";
}

function jsonLine(f: Fields): string {
  return JSON.stringify({
    event_type: f.outcome.type,
    timestamp: f.time.toISOString(),
    record_id: f.id,
    action: "tool_invocation",
    status: f.status,
    user: f.user,
    tenant_id: f.tenant,
    mcp_server_id: f.server,
    route_backend: f.backend,
    tool_name: f.tool,
    call_id: f.callId,
    duration_ms: f.durationMs,
    error_type: f.errorType,
  });
}
