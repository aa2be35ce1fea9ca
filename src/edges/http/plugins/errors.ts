import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "../../../app/ports/logger.js";
import {
  type ErrorType,
  GatewayError,
  INTERNAL_ERROR_MESSAGE,
  RequestRejected,
} from "../../../domain/errors.js";

/**
 * Error types the specification gives a REST status (spec 2 §7), plus the quota refusal of the same
 * family as the rate limit. Every other error is "any other": a 500 that says nothing more.
 */
const REST_VISIBLE: ReadonlySet<ErrorType> = new Set<ErrorType>([
  "McpServerNotFoundError",
  "ToolNotFoundError",
  "ValidationError",
  "AuthenticationError",
  "AccessDeniedError",
  "AuthorizationError",
  "RateLimitExceeded",
  "TenantQuotaExceeded",
  "McpServerNotReadyError",
  "McpServerNotHereError",
  "McpServerDegradedError",
  "ToolTimeoutError",
  "CannotModifyBuiltinRoleError",
  "RoleNotFoundError",
  "RoleAlreadyExistsError",
  "ApiKeyNotFoundError",
  "AuthDisabledError",
  "ConfigFileUnavailableError",
  "StoreUnavailableError",
  "SessionLimitExceeded",
]);

/**
 * The one mapping from errors to REST bodies (spec 2 §7): domain errors as
 * `{error:{code, message, details}}` with the catalogue's status (other domain errors as a 500 that
 * names only their type), handler checks as flat `{error:'<code>', detail}`, anything else as a bare
 * 500 that reveals nothing.
 */
export function registerErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof GatewayError && REST_VISIBLE.has(error.type)) {
      // A refusal that knows when to come back says so (rate limit, store away, session cap).
      if (typeof error.details?.retry_after === "number") {
        reply.header("Retry-After", String(Math.ceil(error.details.retry_after)));
      }
      return reply
        .status(error.status)
        .send({ error: { code: error.type, message: error.message, details: error.details } });
    }
    if (error instanceof RequestRejected) {
      return reply.status(error.status).send({ error: error.code, detail: error.detail, ...error.extra });
    }
    if (error instanceof GatewayError) {
      // "Any other" (spec 2 §7): 500 with the generic message; the body still names the exception
      // type, as every domain error body does, and nothing more.
      logger.warn(
        { ...requestFields(request), error_type: error.type, message: error.message },
        "request failed",
      );
      return reply
        .status(500)
        .send({ error: { code: error.type, message: INTERNAL_ERROR_MESSAGE, details: null } });
    }
    const fastifyError = error as Partial<FastifyError>;
    if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode < 500) {
      return reply
        .status(fastifyError.statusCode)
        .send({ error: "invalid_body", detail: fastifyError.message ?? "invalid request" });
    }
    logger.error({ ...requestFields(request), err: error }, "request failed");
    return reply
      .status(500)
      .send({ error: { code: "InternalServerError", message: INTERNAL_ERROR_MESSAGE, details: null } });
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send({ error: "not_found", detail: `No route for ${request.method} ${request.url.split("?")[0]}` });
  });
}

/**
 * What a log line says of the request that failed: its method and route, never its query or body
 * (either may carry a secret).
 */
export function requestFields(request: FastifyRequest): Record<string, unknown> {
  return { method: request.method, route: request.routeOptions.url ?? request.url.split("?")[0] };
}

/** Longest path parameter the router reads (a session id is 1-128 characters, spec 1). */
export const MAX_PATH_PARAM_LENGTH = 256;

/**
 * What the router refuses before any route runs, in the flat shape of handler checks (spec 2 §7)
 * rather than the framework's own body (which names its error codes): a path that is not valid
 * percent-encoding answers 400 `invalid_url`, a path parameter over the router's length 414
 * `uri_too_long`, a failed route constraint 500. The path is not repeated back.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_ASYNC_CONSTRAINT") {
    reply
      .status(500)
      .send({ error: { code: "InternalServerError", message: INTERNAL_ERROR_MESSAGE, details: null } });
    return;
  }
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    reply.status(414).send({
      error: "uri_too_long",
      detail: `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters`,
    });
    return;
  }
  reply
    .status(400)
    .send({ error: "invalid_url", detail: "the path is not a valid URL (bad percent-encoding)" });
}

/** Statuses a request HTTP itself cannot read is answered with, by Node's parser error code. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, [number, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout"],
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large"],
};

/**
 * An HTTP request Node's parser refuses (conflicting `Content-Length` and `Transfer-Encoding`,
 * malformed headers; 408 and 431 for a timeout and oversized headers) gets its status with a body
 * in the flat shape, then the socket is destroyed (it may be half-open: ending it would let the
 * peer hold it).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (socket.writable && error.code !== "ECONNRESET") {
    const [status, text] = CLIENT_ERROR_STATUS[error.code ?? ""] ?? [400, "Bad Request"];
    const body = JSON.stringify({ error: "bad_request", detail: "the request could not be read" });
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
