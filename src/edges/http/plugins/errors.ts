import type { FastifyError, FastifyInstance } from "fastify";
import { GatewayError, INTERNAL_ERROR_MESSAGE, RequestRejected } from "../../../domain/errors.js";

/**
 * The one mapping from errors to REST bodies (spec 2 §7): domain errors as
 * `{error:{code, message, details}}` with the catalogue's status, handler checks as flat
 * `{error:'<code>', detail}`, anything else as a bare 500 that reveals nothing.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof GatewayError) {
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
    request.log.error({ err: error }, "unhandled error");
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
