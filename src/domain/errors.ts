/**
 * The one error catalogue. Each domain error has a stable type name from the specification, the
 * HTTP status a REST caller sees and whether retrying may succeed. Edges map these once per protocol
 * (REST: `edges/http/plugins/errors.ts`, MCP: `edges/mcp/error-mapping.ts`).
 */
export const ERROR_CATALOGUE = {
  McpServerNotFoundError: { status: 404, retryable: false },
  ToolNotFoundError: { status: 404, retryable: false },
  ValidationError: { status: 422, retryable: false },
  AuthenticationError: { status: 401, retryable: false },
  AccessDeniedError: { status: 403, retryable: false },
  AuthorizationError: { status: 403, retryable: false },
  RateLimitExceeded: { status: 429, retryable: true },
  McpServerNotReadyError: { status: 409, retryable: true },
  McpServerNotHereError: { status: 409, retryable: true },
  McpServerDegradedError: { status: 503, retryable: true },
  ToolTimeoutError: { status: 504, retryable: true },
  CannotStartMcpServerError: { status: 500, retryable: true },
  TenantQuotaExceeded: { status: 429, retryable: true },
  ToolAccessDeniedError: { status: 403, retryable: false },
  // Governance refusals of a tool call: a runtime withdrawal, an interceptor validator, a suspended session.
  ToolWithdrawnError: { status: 403, retryable: false },
  ValidatorDenied: { status: 413, retryable: false },
  SessionSuspendedError: { status: 403, retryable: false },
  // A pinned tool whose listed digest differs from its pin (gate reason `digest_mismatch`).
  ToolDigestMismatchError: { status: 403, retryable: false },
  NoAvailableMemberError: { status: 503, retryable: true },
  CircuitBreakerOpen: { status: 503, retryable: true },
  ToolInvocationError: { status: 500, retryable: false },
  ResponseTooLarge: { status: 500, retryable: false },
  // The L7 egress policy of the called server refused the call, or needs a hold no approval gate serves.
  EgressPolicyDeniedError: { status: 403, retryable: false },
  EgressPolicyApprovalRequiredError: { status: 403, retryable: false },
  NotConfiguredError: { status: 501, retryable: false },
  // Auth management (spec 1 "Auth management"): roles, keys, and the 503 while auth is disabled.
  CannotModifyBuiltinRoleError: { status: 403, retryable: false },
  RoleNotFoundError: { status: 404, retryable: false },
  RoleAlreadyExistsError: { status: 409, retryable: false },
  ApiKeyNotFoundError: { status: 404, retryable: false },
  AuthDisabledError: { status: 503, retryable: false },
  // Spec 1 "Configuration": the configuration file cannot be read, or its directory written (backup).
  ConfigFileUnavailableError: { status: 503, retryable: false },
  // The shared store (the database, or Redis where a feature needs it) cannot be reached: retry later.
  StoreUnavailableError: { status: 503, retryable: true },
  // A client holds as many MCP sessions as its principal or tenant may open, or the gateway all it may hold.
  SessionLimitExceeded: { status: 429, retryable: true },
  InternalServerError: { status: 500, retryable: false },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorType = keyof typeof ERROR_CATALOGUE;

/** Message every caller sees for an error outside the catalogue: internals never leave the process. */
export const INTERNAL_ERROR_MESSAGE = "An internal server error occurred.";

/** A failure the specification names; safe to show to the caller as it is. */
export class GatewayError extends Error {
  readonly status: number;
  readonly retryable: boolean;

  /**
   * `status` overrides the catalogue's where the specification gives one error type another status
   * (spec 2 §7: a ValidationError for an unknown policy scope is 400).
   */
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    status?: number,
  ) {
    super(message);
    this.name = type;
    this.status = status ?? ERROR_CATALOGUE[type].status;
    this.retryable = ERROR_CATALOGUE[type].retryable;
  }
}

/**
 * A request refused by a handler body check before anything ran. The specification gives these a
 * flat body: `{error: '<code>', detail: '<text>', ...extra}` (400 `missing_fields`, 409
 * `declared_in_config`, ...), distinct from the `{error:{code,message,details}}` of domain errors.
 */
export class RequestRejected extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = "RequestRejected";
  }
}

export const notFound = (id: string): GatewayError =>
  new GatewayError("McpServerNotFoundError", `McpServer not found: ${id}`);

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
