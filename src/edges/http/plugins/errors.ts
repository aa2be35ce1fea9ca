import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
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
]);

/**
 * The one mapping from errors to REST bodies (spec 2 §7): domain errors as
 * `{error:{code, message, details}}` with the catalogue's status, handler checks as flat
 * `{error:'<code>', detail}`, anything else as a bare 500 that reveals nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof GatewayError && REST_VISIBLE.has(error.type)) {
      if (error.type === "RateLimitExceeded" && typeof error.details?.retry_after === "number") {
        reply.header("Retry-After", String(Math.ceil(error.details.retry_after)));
      }
      return reply
        .status(error.status)
        .send({ error: { code: error.type, message: error.message, details: error.details } });
    }
    if (error instanceof RequestRejected) {
      return reply.status(error.status).send({ error: error.code, detail: error.detail, ...error.extra });
    }
    const fastifyError = error as Partial<FastifyError>;
    if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode < 500) {
      return reply
        .status(fastifyError.statusCode)
        .send({ error: "invalid_body", detail: fastifyError.message ?? "invalid request" });
    }
    request.log.error({ err: error }, "request failed");
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
 * What the router refuses before any route runs, in the flat shape of handler checks (spec 2 §7)
 * rather than the framework's own body (which names its error codes): a path that is not valid
 * percent-encoding answers 400 `invalid_url`, a path parameter over the router's length 414
 * `uri_too_long`. The path is not repeated back.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    reply.status(414).send({ error: "uri_too_long", detail: "a path segment is longer than 256 characters" });
    return;
  }
  reply
    .status(400)
    .send({ error: "invalid_url", detail: "the path is not a valid URL (bad percent-encoding)" });
}

const CLIENT_ERROR_BODY = JSON.stringify({ error: "bad_request", detail: "the request could not be read" });

/**
 * An HTTP request Node's parser refuses (conflicting `Content-Length` and `Transfer-Encoding`,
 * malformed headers) gets a 400 in the flat shape, then the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(CLIENT_ERROR_BODY)}\r\nConnection: close\r\n\r\n${CLIENT_ERROR_BODY}`,
  );
}
