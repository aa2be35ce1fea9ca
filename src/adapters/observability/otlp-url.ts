/**
 * The URL an OTLP/HTTP (JSON) signal is posted to, from an `otlp_endpoint` setting.
 *
 * Rule: an endpoint without a path (`http://collector:4318`, or ending in `/`) gets the signal
 * path (`/v1/traces`, `/v1/logs`), as the OTLP exporter specification does for its base endpoint;
 * an endpoint with a path is used as written (`http://collector:4318/custom/traces`). Query strings
 * are kept. No port is rewritten: the default `http://localhost:4317` names the conventional
 * OTLP/gRPC port, so a collector must accept OTLP/HTTP there, or the endpoint names its OTLP/HTTP
 * port (4318).
 */
export function otlpSignalUrl(endpoint: string, signal: "traces" | "logs"): string {
  const url = new URL(endpoint);
  if (url.pathname === "" || url.pathname === "/") url.pathname = `/v1/${signal}`;
  return url.href;
}

/** The URL spans are posted to, from `observability.tracing.otlp_endpoint` (see {@link otlpSignalUrl}). */
export function otlpTracesUrl(endpoint: string): string {
  return otlpSignalUrl(endpoint, "traces");
}

/** The URL as logs may show it: scheme, host and path, without credentials or query. */
export function loggableUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
