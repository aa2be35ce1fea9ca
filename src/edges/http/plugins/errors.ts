import type { FastifyError, FastifyInstance } from "fastify";
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
