import type { IncomingHttpHeaders } from "node:http";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { GatewayError } from "../../domain/errors.js";
import { decodeHeaderValue, MCP_NAME_FIELD } from "../../domain/policy/param-headers.js";
import {
  INPUT_REQUIRED_METHODS,
  STATELESS_META,
  STATELESS_REVISION,
  TASKS_EXTENSION,
} from "../../domain/stateless-revision.js";
import { statelessRefusal, type TransportAnswer } from "./error-mapping.js";
import type { StatelessInput } from "./front-door/input-rounds.js";
import { readableRequestId, readMessage } from "./jsonrpc-message.js";
import { RevisionClassifier } from "./revision-classifier.js";
import { type AnswerWriting, single } from "./session-transport.js";

/**
 * Every revision the endpoint serves, newest first: the stateless one, and the session revisions
 * (2025-11-25 and earlier) exactly as before. What `server/discover` offers and -32022 lists.
 */
export const SERVED_REVISIONS: readonly string[] = [STATELESS_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * The initialization every server of stateless requests is handed: the session revision it serves
 * them as, no client capability (what a server asks of its client cannot reach a stateless one as a
 * request), and the revision's name as the client's.
 */
export const STATELESS_CLIENT = {
  protocol_version: LATEST_PROTOCOL_VERSION,
  client_capabilities: {},
  client_info: { name: "stateless-client", version: STATELESS_REVISION },
} as const;

const META = STATELESS_META;

/** A stateless request the endpoint serves. */
export interface StatelessRequest {
  readonly kind: "request";
  readonly message: JSONRPCRequest;
  /** `io.modelcontextprotocol/logLevel`: the least severe log message the client wants; none without it. */
  readonly logLevel: string | undefined;
  /** The client's declared capabilities and, on a retry, its answers and the state it echoes. */
  readonly input: StatelessInput;
}

/** A stateless notification: accepted with 202 and nothing else (this revision defines none over HTTP). */
export interface StatelessNotification {
  readonly kind: "notification";
}

/** A request refused before any MCP server sees it: the HTTP status and the JSON-RPC error it answers. */
export interface StatelessRefusal extends TransportAnswer {
  readonly kind: "refused";
}

const classifier = new RevisionClassifier();

/**
 * How a POST without `Mcp-Session-Id` is read: `legacy` when it speaks a session revision (its
 * `initialize`, or a request that claims no stateless `_meta`), otherwise the stateless request, a
 * notification, or the refusal it gets. The era is told by the MCP SDK's own classifier (the body's
 * `_meta` decides; an `Mcp-Method` header that disagrees with the body is refused there); then,
 * in the order the revision lists them:
 *
 * - an unsupported `io.modelcontextprotocol/protocolVersion`: 400, -32022, with the revisions served
 *   (`supported`) and the one asked for (`requested`), before anything else is looked at;
 * - `MCP-Protocol-Version`, `Mcp-Method`, and for `tools/call`, `prompts/get` and `resources/read`
 *   `Mcp-Name` (Base64 sentinel decoded), each present and equal to the body: else 400, -32020
 *   `HeaderMismatch` naming the header.
 */
export function readStatelessPost(
  headers: IncomingHttpHeaders,
  body: unknown,
): StatelessRequest | StatelessNotification | StatelessRefusal | { kind: "legacy" } {
  const outcome = classifier.classify({
    httpMethod: "POST",
    protocolVersionHeader: single(headers["mcp-protocol-version"]),
    mcpMethodHeader: single(headers["mcp-method"]),
    mcpNameHeader: single(headers["mcp-name"]),
    body,
  });
  if (outcome.kind === "legacy") return { kind: "legacy" };
  const id = readableRequestId(body);
  // The classifier's own refusals keep its wording and codes.
  if (outcome.kind === "reject") {
    const error = {
      code: outcome.code,
      message: outcome.message,
      ...(outcome.data !== undefined && { data: outcome.data }),
    };
    return { kind: "refused", status: outcome.httpStatus, headers: {}, body: { jsonrpc: "2.0", id, error } };
  }
  const meta = metaOf(outcome.message.params);
  const requested = meta[META.protocolVersion];
  // A session revision named in `_meta` is not served statelessly: it needs `initialize`.
  if (requested !== STATELESS_REVISION) {
    const supported = {
      supported: SERVED_REVISIONS,
      requested: typeof requested === "string" ? requested : null,
    };
    return refusal(
      new GatewayError("UnsupportedProtocolVersionError", "Unsupported protocol version", supported),
      id,
    );
  }
  const mismatch = headerMismatch(headers, outcome.message, requested);
  if (mismatch) return refusal(new GatewayError("HEADER_MISMATCH", `Header mismatch: ${mismatch}`), id);
  if (outcome.messageKind === "notification") return { kind: "notification" };
  if (REMOVED_METHODS.has(outcome.message.method))
    return refusal(new GatewayError("MethodNotFoundError", "Method not found"), id);
  const message = readMessage(withoutEnvelope(outcome.message, meta));
  if (!message || !("id" in message))
    return refusal(new GatewayError("InvalidRequestError", "Invalid Request"), id);
  const logLevel = meta[META.logLevel];
  const { request, input } = takeInput(message as JSONRPCRequest, meta[META.clientCapabilities]);
  if (typeof input === "string") return refusal(new GatewayError("InvalidParamsError", input), id);
  return {
    kind: "request",
    message: request,
    logLevel: typeof logLevel === "string" ? logLevel : undefined,
    input,
  };
}

/**
 * The request without `inputResponses` and `requestState` (read here, never relayed: an upstream of
 * a session revision has no use for them), and what they and the declared capabilities say; a
 * reason when one of them is malformed.
 */
function takeInput(
  message: JSONRPCRequest,
  capabilities: unknown,
): { request: JSONRPCRequest; input: StatelessInput | string } {
  const declared = isObject(capabilities) ? capabilities : undefined;
  if (!INPUT_REQUIRED_METHODS.has(message.method) || !message.params)
    return { request: message, input: { capabilities: declared, responses: undefined, state: undefined } };
  const { inputResponses, requestState, ...params } = message.params;
  const request = { ...message, params };
  if (inputResponses !== undefined && !isObject(inputResponses))
    return { request, input: "Invalid params: inputResponses must be an object" };
  if (requestState !== undefined && typeof requestState !== "string")
    return { request, input: "Invalid params: requestState must be a string" };
  return { request, input: { capabilities: declared, responses: inputResponses, state: requestState } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The tool a stateless `tools/call` names in its headers (`Mcp-Name`, Base64 sentinel decoded),
 * read before its body; null for any other request, or when a header is missing or unreadable.
 * The body is checked against the headers later all the same (-32020).
 */
export function statelessToolName(headers: IncomingHttpHeaders): string | null {
  if (headers["mcp-session-id"] !== undefined) return null;
  if (single(headers["mcp-protocol-version"]) !== STATELESS_REVISION) return null;
  if (single(headers["mcp-method"]) !== "tools/call") return null;
  const raw = single(headers["mcp-name"]);
  return raw === undefined ? null : decodeHeaderValue(raw);
}

/**
 * Methods the revision removed (its changelog): the handshake, `ping`, the session's log level
 * and resource subscriptions (`subscriptions/listen` and per-request `logLevel` take their place).
 * Answered as unknown (404, -32601), as the revision wants, though the server behind the endpoint
 * serves them to sessions.
 */
const REMOVED_METHODS = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** The `_meta` keys of the revision's per-request envelope: read here, never passed on. */
const ENVELOPE = new Set<string>([
  META.protocolVersion,
  META.clientInfo,
  META.clientCapabilities,
  META.logLevel,
]);

/**
 * The request as the server behind the endpoint is handed it: without the envelope, which it has no
 * use for and which must not travel on to an upstream (it would tell a server of both revisions,
 * on its session with the gateway, that a stateless request came). Other `_meta` keys (a progress
 * token, a trace context) stay.
 */
function withoutEnvelope(message: JSONRPCRequest, meta: Record<string, unknown>): JSONRPCRequest {
  let kept: Record<string, unknown> | undefined;
  for (const key of Object.keys(meta)) {
    if (ENVELOPE.has(key)) continue;
    kept ??= {};
    // Defined, not assigned: a key `__proto__` stays a key.
    Object.defineProperty(kept, key, {
      value: meta[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const { _meta: _envelope, ...params } = message.params ?? {};
  return { ...message, params: kept ? { ...params, _meta: kept } : params } as JSONRPCRequest;
}

/**
 * The `server/discover` result: the revisions served, what the server behind the endpoint declares
 * (without `logging` and `tasks`, which the stateless revision has no place for: its log level
 * travels with each request, and tasks are the extension `io.modelcontextprotocol/tasks`, declared
 * instead), its name and version, and its instructions. Cacheable by anyone for an hour: it depends on no caller.
 */
export function discoverResult(initialized: {
  capabilities?: Record<string, unknown>;
  serverInfo?: { name: string; version: string };
  instructions?: string;
}): Record<string, unknown> {
  const { logging: _logging, tasks, ...capabilities } = initialized.capabilities ?? {};
  // A server that relays the session revisions' tasks relays the tasks extension to these clients.
  if (tasks !== undefined) {
    const extensions = (capabilities.extensions ?? {}) as Record<string, unknown>;
    capabilities.extensions = { ...extensions, [TASKS_EXTENSION]: {} };
  }
  return {
    resultType: "complete",
    supportedVersions: SERVED_REVISIONS,
    capabilities,
    ...(initialized.instructions !== undefined && { instructions: initialized.instructions }),
    ttlMs: DISCOVER_TTL_MS,
    cacheScope: "public",
    _meta: { [META.serverInfo]: initialized.serverInfo },
  };
}

const DISCOVER_TTL_MS = 60 * 60 * 1000;

/** Results listing or reading what the caller may see: filtered per caller, cached by no one else. */
const PER_CALLER_RESULTS = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/**
 * How the answer to a stateless request is written, as the revision wants it:
 *
 * - a result carries `resultType: "complete"` (unless the server set one) and the gateway's name
 *   and version in `_meta["io.modelcontextprotocol/serverInfo"]`; listings and reads carry
 *   `ttlMs: 0` and `cacheScope: "private"`: what a caller is shown depends on its roles and tenant
 *   and may change with any policy, so no shared cache may keep it and the caller asks again;
 * - an error keeps the request's id; a resource not found is -32602 (the session revisions' -32002);
 *   an unknown method is answered with 404 (the revision tells it so from a server without a
 *   modern endpoint), a missing client capability (-32021) with 400, anything else with 200;
 * - a log message (`notifications/message`) reaches the client only when its request named a
 *   `logLevel` and the message is at least that severe; progress and other notifications pass.
 */
export function statelessWriting(
  request: Pick<StatelessRequest, "message" | "logLevel">,
  serverInfo: { name: string; version: string },
): AnswerWriting {
  const { method } = request.message;
  const least = request.logLevel === undefined ? undefined : LOG_SEVERITY.indexOf(request.logLevel);
  return {
    shape: (message) => {
      if ("error" in message) {
        if (message.error.code !== RESOURCE_NOT_FOUND) return message;
        return { ...message, error: { ...message.error, code: INVALID_PARAMS } };
      }
      if (!("result" in message)) return message;
      const { _meta, ...result } = message.result;
      const shaped: Record<string, unknown> = {
        resultType: "complete",
        ...result,
        _meta: { ..._meta, [META.serverInfo]: serverInfo },
      };
      // An `input_required` result is not cacheable at all: it carries no hint.
      if (PER_CALLER_RESULTS.has(method) && shaped.resultType === "complete") {
        shaped.ttlMs = 0;
        shaped.cacheScope = "private";
      }
      return { ...message, result: shaped } as JSONRPCMessage;
    },
    status: (message) => {
      if (!("error" in message)) return 200;
      if (message.error.code === METHOD_NOT_FOUND) return 404;
      return message.error.code === MISSING_CLIENT_CAPABILITY ? 400 : 200;
    },
    passes: (message) => {
      if (!("method" in message) || message.method !== "notifications/message") return true;
      const level = LOG_SEVERITY.indexOf(String((message.params as { level?: unknown } | undefined)?.level));
      return least !== undefined && least !== -1 && level >= least;
    },
  };
}

/** Log levels from the least severe (RFC 5424, as MCP names them). */
const LOG_SEVERITY = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const MISSING_CLIENT_CAPABILITY = -32021;

/** Which standard header disagrees with the body, or is missing; null when all agree. */
function headerMismatch(
  headers: IncomingHttpHeaders,
  message: { method: string; params?: unknown },
  version: string,
): string | null {
  const sentVersion = single(headers["mcp-protocol-version"]);
  if (sentVersion === undefined) return "MCP-Protocol-Version header is required";
  if (sentVersion !== version) {
    return `MCP-Protocol-Version header value '${sentVersion}' does not match body value '${version}'`;
  }
  const method = single(headers["mcp-method"]);
  if (method === undefined) return "Mcp-Method header is required";
  if (method !== message.method) {
    return `Mcp-Method header value '${method}' does not match body value '${message.method}'`;
  }
  const field = MCP_NAME_FIELD[message.method];
  if (field === undefined) return null;
  const bodyValue = (message.params as Record<string, unknown> | undefined)?.[field];
  const raw = single(headers["mcp-name"]);
  if (raw === undefined) return "Mcp-Name header is required";
  const name = decodeHeaderValue(raw);
  if (name === null) return "Mcp-Name header value is not valid Base64 of UTF-8";
  if (name !== bodyValue)
    return `Mcp-Name header value '${name}' does not match body value '${String(bodyValue)}'`;
  return null;
}

function metaOf(params: unknown): Record<string, unknown> {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : {};
}

function refusal(error: GatewayError, id: RequestId | null): StatelessRefusal {
  return { kind: "refused", ...statelessRefusal(error, id) };
}

/** The change notifications a `subscriptions/listen` may ask for, by the filter that names them. */
const LIST_CHANGED = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
} as const;

type ListFilter = keyof typeof LIST_CHANGED;

/** What a `subscriptions/listen` asks for (`params.notifications`), or what is honored of it. */
export interface ListenFilter {
  readonly lists: readonly ListFilter[];
  readonly resourceSubscriptions: readonly string[];
}

/** The filter a `subscriptions/listen` request names; anything unknown or malformed is left out. */
export function listenRequested(params: unknown): ListenFilter {
  const asked = (params as { notifications?: Record<string, unknown> } | undefined)?.notifications ?? {};
  const uris = asked.resourceSubscriptions;
  return {
    lists: (Object.keys(LIST_CHANGED) as ListFilter[]).filter((filter) => asked[filter] === true),
    resourceSubscriptions: Array.isArray(uris)
      ? [...new Set(uris.filter((uri): uri is string => typeof uri === "string"))]
      : [],
  };
}

/**
 * A listen stream for what is `honored`: its acknowledgement (the honored subset, and the
 * subscription's id, which is the request's), and what it carries of the server's own messages:
 * the list changes honored and the updates of the resources honored, each tagged with the
 * subscription's id; nothing else.
 */
export function listening(
  id: RequestId,
  honored: ListenFilter,
): { acknowledgement: JSONRPCMessage; carry: (message: JSONRPCMessage) => JSONRPCMessage | null } {
  const notifications: Record<string, unknown> = {};
  for (const filter of honored.lists) notifications[filter] = true;
  if (honored.resourceSubscriptions.length > 0)
    notifications.resourceSubscriptions = honored.resourceSubscriptions;
  const methods = new Set<string>(honored.lists.map((filter) => LIST_CHANGED[filter]));
  const uris = new Set(honored.resourceSubscriptions);
  const tagged = (method: string, params: Record<string, unknown> = {}): JSONRPCMessage => ({
    jsonrpc: "2.0",
    method,
    params: { ...params, _meta: { ...(params._meta as object | undefined), [META.subscriptionId]: id } },
  });
  return {
    acknowledgement: tagged("notifications/subscriptions/acknowledged", { notifications }),
    carry: (message) => {
      if (!("method" in message) || "id" in message) return null;
      const params = message.params as Record<string, unknown> | undefined;
      if (methods.has(message.method)) return tagged(message.method, params);
      if (message.method === "notifications/resources/updated" && uris.has(String(params?.uri)))
        return tagged(message.method, params);
      return null;
    },
  };
}
