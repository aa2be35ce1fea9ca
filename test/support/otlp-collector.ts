import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

/** One span as the OTLP/HTTP JSON encoding carries it, with its resource's attributes. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** Attribute values unwrapped from their OTLP `AnyValue` (`stringValue`, `intValue`, ...). */
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, unknown>;
}

/** One log record as the OTLP/HTTP JSON encoding carries it, with its resource's attributes. */
export interface CollectedLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: unknown;
  attributes: Record<string, unknown>;
  /** The attributes as sent: `AnyValue` objects, so that tests see the value types. */
  rawAttributes: OtlpKeyValue[];
  scope: string;
  resource: Record<string, unknown>;
}

export interface OtlpCollector {
  /** The base endpoint, without a path: `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly spans: CollectedSpan[];
  readonly logs: CollectedLogRecord[];
  /** Status codes to answer the next export requests with, first one first (then 200). */
  readonly refusals: number[];
  /** Headers and path of every export request received. */
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

function unwrap(value: OtlpAnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.doubleValue;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, unwrap(entry.value)]));
}

interface LogsRequest {
  resourceLogs?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeLogs?: {
      scope?: { name?: string };
      logRecords?: {
        timeUnixNano: string;
        observedTimeUnixNano: string;
        severityNumber: number;
        severityText: string;
        body?: OtlpAnyValue;
        attributes?: OtlpKeyValue[];
      }[];
    }[];
  }[];
}

function collectLogs(body: LogsRequest, logs: CollectedLogRecord[]): void {
  for (const resourceLogs of body.resourceLogs ?? []) {
    const resource = attributesOf(resourceLogs.resource?.attributes);
    for (const scope of resourceLogs.scopeLogs ?? []) {
      for (const record of scope.logRecords ?? []) {
        logs.push({
          timeUnixNano: record.timeUnixNano,
          observedTimeUnixNano: record.observedTimeUnixNano,
          severityNumber: record.severityNumber,
          severityText: record.severityText,
          body: record.body === undefined ? undefined : unwrap(record.body),
          attributes: attributesOf(record.attributes),
          rawAttributes: record.attributes ?? [],
          scope: scope.scope?.name ?? "",
          resource,
        });
      }
    }
  }
}

/**
 * An OTLP/HTTP collector stub on 127.0.0.1: accepts `POST /v1/traces` and `POST /v1/logs` in the
 * JSON encoding (what the gateway's exporters send), records the spans and log records and answers
 * an empty success, or the status codes queued in `refusals`. Any other path answers 404, any other
 * content type 415, so a wrong URL or encoding fails the test.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const logs: CollectedLogRecord[] = [];
  const refusals: number[] = [];
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ path: req.url ?? "", headers: req.headers });
    if (req.method !== "POST" || (req.url !== "/v1/traces" && req.url !== "/v1/logs")) {
      res.writeHead(404).end();
      return;
    }
    if (!String(req.headers["content-type"]).startsWith("application/json")) {
      res.writeHead(415).end();
      return;
    }
    const refusal = refusals.shift();
    if (refusal !== undefined) {
      res.writeHead(refusal).end();
      return;
    }
    if (req.url === "/v1/logs") {
      collectLogs(JSON.parse(Buffer.concat(chunks).toString("utf8")) as LogsRequest, logs);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      resourceSpans?: {
        resource?: { attributes?: OtlpKeyValue[] };
        scopeSpans?: {
          spans?: {
            traceId: string;
            spanId: string;
            parentSpanId?: string;
            name: string;
            attributes?: OtlpKeyValue[];
            status?: { code?: number };
          }[];
        }[];
      }[];
    };
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
            resource,
          });
        }
      }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    logs,
    refusals,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
