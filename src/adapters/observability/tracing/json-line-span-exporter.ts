import type { ExportResult } from "@opentelemetry/core";
import { ExportResultCode, hrTimeToMicroseconds } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/**
 * `console_export`: one JSON line per span, through `write` (the composition passes stderr). Not
 * the SDK's `ConsoleSpanExporter`, which prints multi-line objects to stdout: in stdio mode stdout
 * carries the MCP protocol, and one line per span is what log collectors read.
 */
export class JsonLineSpanExporter implements SpanExporter {
  constructor(private readonly write: (line: string) => void) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      for (const span of spans) this.write(`${JSON.stringify(describeSpan(span))}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error("write failed"),
      });
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The fields of a span worth a line: ids, name, times, attributes and status. */
export function describeSpan(span: ReadableSpan): Record<string, unknown> {
  const context = span.spanContext();
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    ...(span.parentSpanContext && { parent_span_id: span.parentSpanContext.spanId }),
    name: span.name,
    kind: span.kind,
    start_time_us: hrTimeToMicroseconds(span.startTime),
    duration_us: hrTimeToMicroseconds(span.duration),
    attributes: span.attributes,
    status: span.status,
    service_name: span.resource.attributes["service.name"],
  };
}
