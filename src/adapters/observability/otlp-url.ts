/**
 * The URL an OTLP/HTTP (JSON) signal is posted to, from an `otlp_endpoint` setting.
 *
 * Rule: an endpoint without a path (`http://collector:4318`, or ending in `/`) gets the signal
 * path (`/v1/traces`, `/v1/logs`), as the OTLP exporter specification does for its base endpoint;
 * an endpoint with a path is used as written (`http://collector:4318/custom/traces`). Query strings
 * are kept. No port is rewritten.
 */
export function otlpSignalUrl(endpoint: string, signal: "traces" | "metrics" | "logs"): string {
  const url = new URL(endpoint);
  if (url.pathname === "" || url.pathname === "/") url.pathname = `/v1/${signal}`;
  return url.href;
}

/** Where a signal goes by default: the collector's conventional port of the protocol, on this host. */
const DEFAULT_ENDPOINT = { http: "http://localhost:4318", grpc: "http://localhost:4317" } as const;

/**
 * Where a signal is exported, in this order: the configuration file's `otlp_endpoint` (over HTTP
 * with the path rule of {@link otlpSignalUrl}; over gRPC as written), the endpoint of the
 * `OTEL_EXPORTER_OTLP_*` variables (`fromEnv`, already resolved), else the protocol's default
 * (`http://localhost:4318/v1/<signal>` over HTTP, `http://localhost:4317` over gRPC).
 */
export function resolveOtlpUrl(
  fileEndpoint: string | undefined,
  fromEnv: string | undefined,
  protocol: "http/protobuf" | "http/json" | "grpc",
  signal: "traces" | "metrics" | "logs",
): string {
  if (protocol === "grpc") return fileEndpoint ?? fromEnv ?? DEFAULT_ENDPOINT.grpc;
  if (fileEndpoint !== undefined) return otlpSignalUrl(fileEndpoint, signal);
  return fromEnv ?? `${DEFAULT_ENDPOINT.http}/v1/${signal}`;
}

/** The URL as logs may show it: scheme, host and path, without credentials or query. */
export function loggableUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
