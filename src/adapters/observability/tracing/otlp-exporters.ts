import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";

/** What an OTLP exporter is built from: the protocol, the full URL and what goes with each request. */
export interface OtlpExportSettings {
  readonly protocol: "http/protobuf" | "http/json" | "grpc";
  readonly url: string;
  /** HTTP headers (OTLP/HTTP); over gRPC the exporter reads `OTEL_EXPORTER_OTLP_*HEADERS` itself. */
  readonly headers: Readonly<Record<string, string>>;
  /** Bound of one export, retries included; undefined keeps the exporter's default (10 s). */
  readonly timeoutMs: number | undefined;
}

/**
 * The OTLP span exporter of the protocol: protobuf or JSON over HTTP, or gRPC. Each exporter
 * package loads only when its protocol is used.
 */
export async function openOtlpSpanExporter(settings: OtlpExportSettings): Promise<SpanExporter> {
  const common = {
    url: settings.url,
    ...(settings.timeoutMs !== undefined && { timeoutMillis: settings.timeoutMs }),
  };
  switch (settings.protocol) {
    case "grpc": {
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-grpc");
      return new OTLPTraceExporter(common);
    }
    case "http/json": {
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
      return new OTLPTraceExporter({ ...common, headers: { ...settings.headers } });
    }
    default: {
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
      return new OTLPTraceExporter({ ...common, headers: { ...settings.headers } });
    }
  }
}

/** The OTLP metric exporter of the protocol, as {@link openOtlpSpanExporter} for spans. */
export async function openOtlpMetricExporter(settings: OtlpExportSettings): Promise<PushMetricExporter> {
  const common = {
    url: settings.url,
    ...(settings.timeoutMs !== undefined && { timeoutMillis: settings.timeoutMs }),
  };
  switch (settings.protocol) {
    case "grpc": {
      const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-grpc");
      return new OTLPMetricExporter(common);
    }
    case "http/json": {
      const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
      return new OTLPMetricExporter({ ...common, headers: { ...settings.headers } });
    }
    default: {
      const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-proto");
      return new OTLPMetricExporter({ ...common, headers: { ...settings.headers } });
    }
  }
}
