import {
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SseError,
} from "@modelcontextprotocol/client";
import { RequestRejected } from "../../../domain/errors.js";
import { errorText } from "../session/error-text.js";
import { redact } from "./remote-settings.js";

/**
 * Safe-to-show messages for remote failures. Built from status codes and error codes rather than
 * from what the server sent: a response body may echo request headers, so upstream text only ever
 * leaves through {@link redact}. Hosts are named (`host:port`), never the path or query of the URL.
 */

const MAX_CAUSE_DEPTH = 6;

/** `data` objects of the error answers made up locally, mapped to the failure they stand for. */
const localFailures = new WeakMap<object, unknown>();

/**
 * A JSON-RPC error answer for request `id`, made up here because the response that should have
 * carried its answer broke. Fed to the transport's `onmessage`, it rejects the pending request at
 * once; the SDK ignores it when the real answer already arrived (the id is no longer pending).
 */
export function lostRequestAnswer(id: string | number, failure: unknown): JSONRPCMessage {
  const data = {};
  localFailures.set(data, failure);
  return {
    jsonrpc: "2.0",
    id,
    error: { code: ProtocolErrorCode.InternalError, message: "response lost", data },
  };
}

/** The failure a made-up answer stands for (see {@link lostRequestAnswer}), if `error` is one. */
export function localFailureOf(error: unknown): unknown {
  if (!(error instanceof ProtocolError) || typeof error.data !== "object" || error.data === null)
    return undefined;
  return localFailures.get(error.data);
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function errorCode(error: unknown): string | undefined {
  for (const entry of causes(error)) {
    const code = (entry as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** The guard's refusal, when it is what a failure comes down to. */
export function findRefusal(...errors: unknown[]): RequestRejected | undefined {
  for (const error of errors) {
    for (const entry of causes(error)) if (entry instanceof RequestRejected) return entry;
  }
  return undefined;
}

export function isTimeoutError(error: unknown): error is Error {
  return error instanceof Error && error.name === "TimeoutError";
}

/** `cannot connect to host:443: connection refused`, or undefined when `error` is no network failure. */
export function describeNetworkFailure(error: unknown, host: string): string | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  switch (code) {
    case "ECONNREFUSED":
      return `cannot connect to ${host}: connection refused`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `cannot connect to ${host}: host not found`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `cannot connect to ${host}: unreachable`;
    case "UND_ERR_CONNECT_TIMEOUT":
      return `cannot connect to ${host}: connect timed out (http.connect_timeout_s)`;
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return `the connection to ${host} was closed by the server`;
    case "ERR_SSL_WRONG_VERSION_NUMBER":
      return `TLS handshake with ${host} failed (does it speak plain http?)`;
  }
  if (/CERT|SELF_SIGNED|ERR_TLS/.test(code)) {
    return `TLS certificate of ${host} rejected (${code}); trust its CA with tls.ca_cert_path, or set tls.verify_ssl: false`;
  }
  if (code.startsWith("ERR_SSL") || code.startsWith("ERR_TLS"))
    return `TLS handshake with ${host} failed (${code})`;
  if (/^E[A-Z]+$/.test(code)) return `cannot connect to ${host} (${code})`;
  return undefined;
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return " (check the auth block)";
  if (status >= 300 && status < 400)
    return " (a redirect: only redirects within the endpoint's origin are followed)";
  return "";
}

/** `the endpoint answered HTTP 401 (check the auth block)`, for SDK transport errors. */
function describeHttpFailure(error: unknown): string | undefined {
  const status = httpStatusOf(error);
  if (status !== undefined && status > 0) {
    return `the endpoint answered HTTP ${status}${statusHint(status)}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ClientHttpUnexpectedContent) {
    return "the endpoint answered with a content type that is not MCP";
  }
  if (error instanceof SseError && typeof error.code === "number") {
    return `the SSE endpoint answered HTTP ${error.code}${statusHint(error.code)}`;
  }
  return undefined;
}

/** The streamable HTTP status that means "no such transport here": try the old SSE one. */
export function shouldFallBackToSse(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status === undefined) return false;
  // Auth failures and transient refusals say nothing about the transport: report them as they are.
  return status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}

/** The HTTP status a streamable HTTP transport error reports (its SSE counterpart has its own). */
export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof SdkHttpError && typeof error.status === "number" ? error.status : undefined;
}

interface Context {
  readonly host: string;
  readonly secrets: readonly string[];
}

/**
 * The Error a failed connect rejects with: the guard's `RequestRejected` as it is, otherwise a
 * plain Error whose message says what went wrong in words.
 */
export function connectFailure(cause: unknown, lastFailure: unknown, context: Context): Error {
  const error = localFailureOf(cause) ?? cause;
  const refusal = findRefusal(error, lastFailure);
  if (refusal !== undefined) return refusal;
  const http = describeHttpFailure(error);
  if (http !== undefined) return new Error(`initialize failed: ${http}`);
  const network =
    describeNetworkFailure(lastFailure, context.host) ?? describeNetworkFailure(error, context.host);
  if (network !== undefined) return new Error(network);
  if (isTimeoutError(error)) return new Error(`initialize timed out: ${error.message}`);
  if (isTimeoutError(lastFailure)) return new Error(`initialize timed out: ${lastFailure.message}`);
  return new Error(`initialize failed: ${redact(errorText(error), context.secrets)}`);
}

/**
 * The error a failed request rejects with once connected: timeouts keep the name `TimeoutError`,
 * the server's JSON-RPC errors keep their code (message redacted), transport failures become a
 * sentence naming the host.
 */
export function requestFailure(cause: unknown, what: string, context: Context): unknown {
  const local = localFailureOf(cause);
  const error = local ?? cause;
  const refusal = findRefusal(error);
  if (refusal !== undefined) return refusal;
  if (isTimeoutError(error)) {
    const timeout = new Error(`${what} timed out: ${error.message}`);
    timeout.name = "TimeoutError";
    return timeout;
  }
  if (error instanceof ProtocolError) {
    const message = redact(error.message, context.secrets);
    if (message === error.message) return error;
    // Rebuilt without `data`, which may hold the same echoed text.
    return new ProtocolError(error.code, message);
  }
  const described = describeHttpFailure(error) ?? describeNetworkFailure(error, context.host);
  if (described !== undefined) return new Error(`${what} failed: ${described}`);
  const text = error instanceof Error ? error.message : String(error);
  return new Error(`${what} failed: ${redact(text, context.secrets)}`);
}
