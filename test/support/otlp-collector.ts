import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { decodeMetricsRequest, decodeTraceRequest } from "./otlp-protobuf.js";

/** One span as the OTLP/HTTP JSON encoding carries it, with its resource's attributes. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
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

/** One histogram data point of a metric, with its attributes. */
export interface CollectedDataPoint {
  name: string;
  unit: string;
  count: number;
  attributes: Record<string, unknown>;
}

export interface OtlpCollector {
  /** The base endpoint, without a path: `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly spans: CollectedSpan[];
  readonly logs: CollectedLogRecord[];
  /** Data points of the metrics received (OTLP/HTTP, JSON or protobuf), with their metric's name and unit. */
  readonly metrics: CollectedDataPoint[];
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

interface MetricsRequest {
  resourceMetrics?: {
    scopeMetrics?: {
      metrics?: {
        name: string;
        unit?: string;
        histogram?: { dataPoints?: { count?: number | string; attributes?: OtlpKeyValue[] }[] };
      }[];
    }[];
  }[];
}

function collectMetrics(body: MetricsRequest, points: CollectedDataPoint[]): void {
  for (const resource of body.resourceMetrics ?? []) {
    for (const scope of resource.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        for (const point of metric.histogram?.dataPoints ?? []) {
          points.push({
            name: metric.name,
            unit: metric.unit ?? "",
            count: Number(point.count ?? 0),
            attributes: attributesOf(point.attributes),
          });
        }
      }
    }
  }
}

const PATHS = new Set(["/v1/traces", "/v1/logs", "/v1/metrics"]);

/**
 * An OTLP/HTTP collector stub on 127.0.0.1: accepts `POST /v1/traces` and `/v1/metrics` (JSON or
 * protobuf) and `/v1/logs` (JSON), records the spans, log records and histogram points and
 * answers an empty success, or the status codes queued in `refusals`. Any other path answers 404,
 * any other content type 415, so a wrong URL or encoding fails the test.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const logs: CollectedLogRecord[] = [];
  const refusals: number[] = [];
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  const metrics: CollectedDataPoint[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ path: req.url ?? "", headers: req.headers });
    if (req.method !== "POST" || !PATHS.has(req.url ?? "")) {
      res.writeHead(404).end();
      return;
    }
    const type = String(req.headers["content-type"]);
    const protobuf = req.url !== "/v1/logs" && type.startsWith("application/x-protobuf");
    if (!type.startsWith("application/json") && !protobuf) {
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
    if (req.url === "/v1/metrics") {
      const body = Buffer.concat(chunks);
      collectMetrics(
        (protobuf ? decodeMetricsRequest(body) : JSON.parse(body.toString("utf8"))) as MetricsRequest,
        metrics,
      );
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return;
    }
    const body = (
      protobuf
        ? decodeTraceRequest(Buffer.concat(chunks))
        : JSON.parse(Buffer.concat(chunks).toString("utf8"))
    ) as {
      resourceSpans?: {
        resource?: { attributes?: OtlpKeyValue[] };
        scopeSpans?: {
          spans?: {
            traceId: string;
            spanId: string;
            parentSpanId?: string;
            name: string;
            kind?: number;
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
            kind: span.kind ?? 0,
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
    metrics,
    refusals,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
