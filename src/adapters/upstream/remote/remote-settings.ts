/**
 * The `auth`, `tls` and `http` keys of a remote server, read from `ServerSpec.options`. The
 * configuration schema (`config/schema/server-blocks.ts`) has already validated and defaulted them
 * for servers from the file; REST registrations may omit them, so every key has the same default
 * here and shapes are checked again (messages name the key, never a value).
 */

export type RemoteTransportChoice = "auto" | "streamable_http" | "sse";

export interface RemoteSettings {
  readonly transport: RemoteTransportChoice;
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
  /** `http.headers`: added to every request unless the MCP transport set the header itself. */
  readonly headers: Readonly<Record<string, string>>;
  /** The credential header (`Authorization: Bearer ...` or the API-key header); set on every request. */
  readonly auth?: { readonly name: string; readonly value: string };
  readonly tls: { readonly verify: boolean; readonly caCertPath?: string };
  /** Values that must never appear in a message: the token and header values that may be secret. */
  readonly secrets: readonly string[];
}

/** Schema defaults of `http` (spec 2 §2 leaves them open; `docs/configuration.md` states them). */
const DEFAULT_CONNECT_TIMEOUT_S = 10;
const DEFAULT_READ_TIMEOUT_S = 300;
const DEFAULT_API_KEY_HEADER = "X-API-Key";

/**
 * Extra header values shorter than this are not treated as secrets: redacting `1` or `yes` from
 * messages would garble them, and such values protect nothing.
 */
const MIN_SECRET_LENGTH = 8;

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function fail(message: string): never {
  throw new Error(message);
}

function record(value: unknown, key: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) fail(`remote option ${key} must be a mapping`);
  return value as Record<string, unknown>;
}

function seconds(value: unknown, key: string, fallback: number): number {
  if (value === undefined || value === null) return fallback * 1000;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    fail(`remote option ${key} must be a number of seconds above 0`);
  }
  return Math.ceil(value * 1000);
}

function headerName(value: unknown, key: string): string {
  if (typeof value !== "string" || !HEADER_NAME.test(value))
    fail(`remote option ${key} must be a header name`);
  return value;
}

function headerValue(value: unknown, key: string): string {
  // CR, LF and NUL would split or end the header; the value itself is never echoed.
  if (typeof value !== "string" || /[\r\n\0]/.test(value))
    fail(`remote option ${key} must be a header value`);
  return value;
}

function readAuth(value: unknown): RemoteSettings["auth"] {
  if (value === undefined || value === null) return undefined;
  const auth = record(value, "auth");
  const token = headerValue(auth.token, "auth.token");
  if (token.trim() === "") fail("remote option auth.token must not be empty");
  if (auth.type === "bearer") return { name: "Authorization", value: `Bearer ${token}` };
  if (auth.type === "api_key") {
    const name = auth.header_name === undefined ? DEFAULT_API_KEY_HEADER : auth.header_name;
    return { name: headerName(name, "auth.header_name"), value: token };
  }
  return fail("remote option auth.type must be bearer or api_key");
}

export function readRemoteSettings(options: Readonly<Record<string, unknown>> | undefined): RemoteSettings {
  const http = record(options?.http, "http");
  const tls = record(options?.tls, "tls");
  const transport = http.transport ?? "auto";
  if (transport !== "auto" && transport !== "streamable_http" && transport !== "sse") {
    fail("remote option http.transport must be auto, streamable_http or sse");
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(record(http.headers, "http.headers"))) {
    headers[headerName(name, `http.headers.${name}`)] = headerValue(value, `http.headers.${name}`);
  }
  const verify = tls.verify_ssl ?? true;
  if (typeof verify !== "boolean") fail("remote option tls.verify_ssl must be true or false");
  const caCertPath = tls.ca_cert_path;
  if (
    caCertPath !== undefined &&
    caCertPath !== null &&
    (typeof caCertPath !== "string" || caCertPath === "")
  ) {
    fail("remote option tls.ca_cert_path must be a path");
  }
  const auth = readAuth(options?.auth);
  const secrets = Object.values(headers).filter((value) => value.length >= MIN_SECRET_LENGTH);
  if (auth !== undefined) {
    const token = auth.value.replace(/^Bearer /, "");
    secrets.push(auth.value, token);
  }
  return {
    transport,
    connectTimeoutMs: seconds(http.connect_timeout_s, "http.connect_timeout_s", DEFAULT_CONNECT_TIMEOUT_S),
    readTimeoutMs: seconds(http.read_timeout_s, "http.read_timeout_s", DEFAULT_READ_TIMEOUT_S),
    headers,
    ...(auth !== undefined && { auth }),
    tls: { verify, ...(typeof caCertPath === "string" && { caCertPath }) },
    // Longest first, so that `Bearer <token>` is replaced whole before the bare token.
    secrets: [...new Set(secrets)].sort((a, b) => b.length - a.length),
  };
}

/** Replaces every secret in `text` with `[redacted]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret !== "") result = result.split(secret).join("[redacted]");
  }
  return result;
}
