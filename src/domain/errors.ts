/**
 * How an error is written on REST (spec 2 §7):
 * - `domain`: `{error:{code, message, details}}` with the status;
 * - `internal`: "any other", a 500 `{error:{code, message:'An internal server error occurred.', details:null}}`;
 * - `flat`: a handler check, `{error:'<type>', detail:'<message>', ...details}` (`missing_fields`, ...);
 * - `coded`: the middleware's flat shape `{error:'<type>', message, details}` (`authentication_failed`);
 * - `message`: the approval routes' `{error:'<message>', ...details}` (spec 1 §4).
 */
export type RestShape = "domain" | "internal" | "flat" | "coded" | "message";

/**
 * How an error answers an MCP management tool call (spec 2 §4):
 * - `ran_and_failed` (shape 1): `isError: false`, payload `{error, error_type, details}`;
 * - `refused` (shape 2): `isError: true`, `Error executing tool <tool>: <reason>`;
 * - `internal`: shape 1 that names nothing (`InternalServerError` and the generic message);
 * - `jsonrpc`: a JSON-RPC error with the entry's `rpc` code (a relayed request's refusal).
 */
export type McpShape = "ran_and_failed" | "refused" | "internal" | "jsonrpc";

export interface CatalogueEntry {
  /** The HTTP status a REST caller sees. */
  readonly status: number;
  /** Whether retrying the same request may succeed. */
  readonly retryable: boolean;
  /** The REST body shape. */
  readonly rest: RestShape;
  /** The MCP shape of a management tool's failure. */
  readonly mcp: McpShape;
  /**
   * The JSON-RPC code where the error goes on the wire as a JSON-RPC error (front door); without
   * one such an error is -32603 Internal error naming its type.
   */
  readonly rpc?: number;
  /**
   * Whether a REST answer of the `internal` shape keeps the error's `details`: its message stays
   * the generic one, and the details (written for the caller, never internals) say why.
   */
  readonly showsDetails?: boolean;
}

const domain = (status: number, retryable = false, extra: Partial<CatalogueEntry> = {}): CatalogueEntry => ({
  status,
  retryable,
  rest: "domain",
  mcp: "ran_and_failed",
  ...extra,
});

/** A type the spec gives no REST status: any other, a 500 that names only its type. */
const internal = (status: number, retryable = false): CatalogueEntry => ({
  status,
  retryable,
  rest: "internal",
  mcp: "ran_and_failed",
});

/**
 * A handler body check (flat REST body). On MCP it names nothing: these refusals are written for
 * REST callers, and a management tool that meets one reports an internal failure.
 */
const flat = (status: number) =>
  ({ status, retryable: false, rest: "flat", mcp: "internal" }) as const satisfies CatalogueEntry;

/** An approval route's refusal (`{error:'<message>'}`); no management tool meets one. */
const approval = (status: number): CatalogueEntry => ({
  status,
  retryable: false,
  rest: "message",
  mcp: "internal",
});

/** A relayed MCP request refused with a JSON-RPC error; never a REST answer. */
const jsonRpc = (rpc: number, status: number): CatalogueEntry => ({
  status,
  retryable: false,
  rest: "internal",
  mcp: "jsonrpc",
  rpc,
});

/**
 * The one error catalogue. Each error has a stable type name from the specification (for flat
 * bodies, the code they carry), its HTTP status, whether retrying may succeed, its REST body shape,
 * its MCP shape and, where it is answered as one, its JSON-RPC code. Edges map these once per
 * protocol (REST: `edges/http/plugins/errors.ts`, MCP: `edges/mcp/error-mapping.ts`).
 */
export const ERROR_CATALOGUE = {
  // Spec 2 §4: an unknown server id is refused before the tool ran (`unknown_mcp_server: <id>`).
  McpServerNotFoundError: domain(404, false, { mcp: "refused" }),
  // On the front door an unknown or hidden upstream tool is JSON-RPC -32601 (spec 2 §4, shape 3).
  ToolNotFoundError: domain(404, false, { rpc: -32601 }),
  // Spec 2 §7: 400 for an unknown policy scope. An input schema refusal is an MCP shape 2 (see
  // `validation.ts`); a check inside an operation's run is shape 1.
  ValidationError: domain(422),
  AuthenticationError: domain(401, false, { mcp: "refused" }),
  AccessDeniedError: domain(403, false, { mcp: "refused" }),
  AuthorizationError: domain(403),
  RateLimitExceeded: domain(429, true),
  McpServerNotReadyError: domain(409, true),
  McpServerNotHereError: domain(409, true),
  McpServerDegradedError: domain(503, true),
  ToolTimeoutError: domain(504, true),
  // Its details say why a start failed: the reason, the exit, the last stderr lines (redacted).
  CannotStartMcpServerError: { ...internal(500, true), showsDetails: true },
  TenantQuotaExceeded: domain(429, true),
  ToolAccessDeniedError: internal(403),
  // Governance refusals of a tool call: a runtime withdrawal, an interceptor validator, a suspended session.
  ToolWithdrawnError: internal(403),
  ValidatorDenied: internal(413),
  SessionSuspendedError: internal(403),
  // A pinned tool whose listed digest differs from its pin (gate reason `digest_mismatch`).
  ToolDigestMismatchError: internal(403),
  NoAvailableMemberError: internal(503, true),
  CircuitBreakerOpen: internal(503, true),
  // An upstream's own JSON-RPC error rides along as `GatewayError.upstream` (relayed as sent).
  ToolInvocationError: internal(500),
  ResponseTooLarge: internal(500),
  // The L7 egress policy of the called server refused the call, or needs a hold no approval gate serves.
  EgressPolicyDeniedError: internal(403),
  EgressPolicyApprovalRequiredError: internal(403),
  NotConfiguredError: internal(501),
  // Auth management (spec 1 "Auth management"): roles, keys, and the 503 while auth is disabled.
  CannotModifyBuiltinRoleError: domain(403),
  RoleNotFoundError: domain(404),
  RoleAlreadyExistsError: domain(409),
  ApiKeyNotFoundError: domain(404),
  AuthDisabledError: domain(503),
  // The server catalog (`/catalog`): an unknown entry id, a second entry of a taken name.
  CatalogEntryNotFoundError: domain(404),
  CatalogEntryAlreadyExistsError: domain(409),
  // Spec 1 "Configuration": the configuration file cannot be read, or its directory written (backup).
  ConfigFileUnavailableError: domain(503),
  // The shared store (the database, or Redis where a feature needs it) cannot be reached: retry later.
  StoreUnavailableError: domain(503, true),
  // A client holds as many MCP sessions as its principal or tenant may open, or the gateway all it may hold.
  SessionLimitExceeded: domain(429, true),
  // Maintenance (`POST /maintenance/compact`): no event stream of that id; a stream with no
  // snapshot to compact up to (an earlier revision's 500, with a message that says so).
  StreamNotFoundError: domain(404),
  SnapshotNotFoundError: domain(500),
  InternalServerError: internal(500),

  // Middleware refusals (spec 2 §7 "Flat shapes"): `{error, message, details}`.
  authentication_failed: { status: 401, retryable: false, rest: "coded", mcp: "refused" },
  too_many_attempts: { status: 429, retryable: true, rest: "coded", mcp: "refused" },
  // A write authenticated by the console's session cookie without its `X-CSRF-Token` (docs/console.md).
  csrf_failed: { status: 403, retryable: false, rest: "coded", mcp: "refused" },

  // Handler body checks (spec 2 §7 "Flat shapes"): `{error:'<code>', detail, ...details}`.
  missing_fields: flat(400),
  invalid_body: flat(400),
  invalid_mode: flat(400),
  invalid_query: flat(400),
  invalid_session_id: flat(400),
  ssrf_blocked: flat(400),
  declared_in_config: flat(409),
  stale_version: flat(409),
  no_l7_policy: flat(404),
  source_not_found: flat(404),
  // What HTTP and the router refuse before a route runs.
  bad_request: flat(400),
  not_found: flat(404),
  invalid_url: flat(400),
  uri_too_long: flat(414),
  upgrade_required: flat(426),

  // The approval routes (decisions "Approvals"): `{error:'<message>'}`, with `state` on a 409.
  ApprovalRequestInvalid: approval(400),
  ApprovalSignatureInvalid: approval(401),
  ApprovalNotFound: approval(404),
  ApprovalConflict: approval(409),
  ApprovalServiceDisabled: approval(503),

  // A relayed front-door request refused by the gateway (MCP: -32002 for an unknown resource).
  InvalidParamsError: jsonRpc(-32602, 400),
  MethodNotFoundError: jsonRpc(-32601, 404),
  ResourceNotFoundError: jsonRpc(-32002, 404),
  // A `tools/call` whose `Mcp-Param-*` headers disagree with its arguments, or cannot be verified (spec 2 §7);
  // a stateless request whose standard headers are missing or disagree with its body.
  HEADER_MISMATCH: jsonRpc(-32020, 400),
  // MCP 2026-07-28: a stateless request naming a revision not served statelessly; a malformed one.
  UnsupportedProtocolVersionError: jsonRpc(-32022, 400),
  InvalidRequestError: jsonRpc(-32600, 400),
  // MCP 2026-07-28: an upstream asked for input (sampling, elicitation, roots) the client did not declare.
  MissingRequiredClientCapabilityError: jsonRpc(-32021, 400),
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorType = keyof typeof ERROR_CATALOGUE;

/** The flat-bodied handler checks. */
export type FlatErrorType = {
  [T in ErrorType]: (typeof ERROR_CATALOGUE)[T]["rest"] extends "flat" ? T : never;
}[ErrorType];

/** Whether a name (read back from another replica, say) is a catalogued error type. */
export function isErrorType(type: unknown): type is ErrorType {
  return typeof type === "string" && Object.hasOwn(ERROR_CATALOGUE, type);
}

/** Message every caller sees for an error outside the catalogue: internals never leave the process. */
export const INTERNAL_ERROR_MESSAGE = "An internal server error occurred.";

/** The JSON-RPC error an upstream answered, as it sent it. */
export interface UpstreamRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What an error carries besides its type, message and details. */
export interface ErrorFields {
  /**
   * Overrides the catalogue's status where the specification gives one error type another status
   * (spec 2 §7: a ValidationError for an unknown policy scope is 400).
   */
  readonly status?: number | undefined;
  /**
   * Overrides the catalogue's REST body shape for this error (a tool-level failure answered by the
   * REST tool call in words, as `gateway_call` reports it).
   */
  readonly rest?: RestShape | undefined;
  /** Overrides the catalogue's MCP shape for this error (an input schema refusal is shape 2). */
  readonly mcp?: McpShape | undefined;
  /** The id a lookup did not find, as the MCP reason names it (`unknown_mcp_server: <id>`). */
  readonly subject?: string | undefined;
  /**
   * The JSON-RPC error an upstream answered a `ToolInvocationError` with, relayed unchanged on the
   * front door (code, message and data: a client may act on them, as on -32042).
   */
  readonly upstream?: UpstreamRpcError | undefined;
}

/** A failure the specification names; safe to show to the caller as it is. */
export class GatewayError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  readonly rest: RestShape;
  readonly mcp: McpShape;
  readonly subject: string | undefined;
  readonly upstream: UpstreamRpcError | undefined;

  /** `fields` as a number is the status override alone. */
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    fields: number | ErrorFields = {},
  ) {
    super(message);
    const entry: CatalogueEntry = ERROR_CATALOGUE[type];
    const given = typeof fields === "number" ? { status: fields } : fields;
    this.name = type;
    this.status = given.status ?? entry.status;
    this.retryable = entry.retryable;
    this.rest = given.rest ?? entry.rest;
    this.mcp = given.mcp ?? entry.mcp;
    this.subject = given.subject;
    this.upstream = given.upstream;
  }

  /** The JSON-RPC code of this error where it is answered as a JSON-RPC error, if it has its own. */
  get rpcCode(): number | undefined {
    return (ERROR_CATALOGUE[this.type] as CatalogueEntry).rpc;
  }

  /** Whether the `internal` REST shape keeps this error's details (the catalogue's `showsDetails`). */
  get showsDetails(): boolean {
    return (ERROR_CATALOGUE[this.type] as CatalogueEntry).showsDetails === true;
  }

  /** Seconds after which a retry may succeed, when the error knows (sent as `Retry-After`). */
  get retryAfterS(): number | undefined {
    const value = this.details?.retry_after;
    return typeof value === "number" ? value : undefined;
  }
}

/**
 * A request refused by a handler body check before anything ran: a catalogued flat type, whose
 * body is `{error: '<code>', detail: '<text>', ...extra}` (400 `missing_fields`, 409
 * `declared_in_config`, ...), distinct from the `{error:{code,message,details}}` of domain errors.
 */
export class RequestRejected extends GatewayError {
  constructor(status: number, code: FlatErrorType, detail: string, extra: Record<string, unknown> = {}) {
    super(code, detail, extra, status);
  }

  get code(): FlatErrorType {
    return this.type as FlatErrorType;
  }

  get detail(): string {
    return this.message;
  }

  get extra(): Record<string, unknown> {
    return this.details ?? {};
  }
}

export const notFound = (id: string): GatewayError =>
  new GatewayError("McpServerNotFoundError", `McpServer not found: ${id}`, null, { subject: id });

export const validationError = (message: string, details: Record<string, unknown> | null = null) =>
  new GatewayError("ValidationError", message, details);

/** Export, backup or diff cannot act on the configuration file (503 with the reason). */
export const configFileUnavailable = (reason: string): GatewayError =>
  new GatewayError("ConfigFileUnavailableError", reason, { reason });

/**
 * The store a request needs cannot be reached (503, retryable). `retryAfterS` is sent as
 * `Retry-After` and as `details.retry_after`; `store` names what is away (`database`, `redis`).
 */
export const storeUnavailable = (store: string, retryAfterS: number): GatewayError =>
  new GatewayError("StoreUnavailableError", `The ${store} is unavailable; retry in ${retryAfterS} s`, {
    store,
    retry_after: retryAfterS,
  });
