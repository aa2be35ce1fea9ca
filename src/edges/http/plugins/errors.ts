import type { Duplex } from "node:stream";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "../../../app/ports/logger.js";
import { GatewayError, INTERNAL_ERROR_MESSAGE } from "../../../domain/errors.js";

/** A REST answer: status, headers and body. */
export interface RestAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

const INTERNAL_BODY = {
  error: { code: "InternalServerError", message: INTERNAL_ERROR_MESSAGE, details: null },
};

/**
 * The one mapping from errors to REST answers (spec 2 §7), in the shape the catalogue gives each
 * type (`GatewayError.rest`): domain errors as `{error:{code, message, details}}` with their
 * status; "any other" as a 500 that names only the type; handler checks flat
 * `{error:'<code>', detail, ...details}`; the middleware's `{error:'<code>', message, details}`;
 * the approval routes' `{error:'<message>', ...details}`. A refusal that knows when to come back
 * says so in `Retry-After` (rate limit, store away, session cap). Anything outside the catalogue
 * is a bare 500 that reveals nothing.
 */
export function restAnswer(error: unknown): RestAnswer {
  if (!(error instanceof GatewayError)) return { status: 500, headers: {}, body: INTERNAL_BODY };
  const retryAfter = error.retryAfterS;
  const headers: Record<string, string> =
    retryAfter === undefined ? {} : { "Retry-After": String(Math.ceil(retryAfter)) };
  switch (error.rest) {
    case "domain":
      return {
        status: error.status,
        headers,
        body: { error: { code: error.type, message: error.message, details: error.details } },
      };
    case "internal":
      return {
        status: 500,
        headers: {},
        body: {
          error: {
            code: error.type,
            message: INTERNAL_ERROR_MESSAGE,
            details: error.showsDetails ? error.details : null,
          },
        },
      };
    case "flat":
      return {
        status: error.status,
        headers,
        body: { error: error.type, detail: error.message, ...error.details },
      };
    case "coded":
      return {
        status: error.status,
        headers,
        body: { error: error.type, message: error.message, details: error.details },
      };
    case "message":
      return { status: error.status, headers, body: { error: error.message, ...error.details } };
  }
}

/** Answers a request with an error, as {@link restAnswer} writes it. */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const answer = restAnswer(error);
  return reply.status(answer.status).headers(answer.headers).send(answer.body);
}

/**
 * Registers the REST error mapping: every error a route throws goes through {@link restAnswer};
 * the framework's own refusals of a body it cannot read are `invalid_body`, and a path no route
 * serves is `not_found`.
 */
export function registerErrorHandling(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    if (!(error instanceof GatewayError)) {
      const fastifyError = error as Partial<FastifyError>;
      if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode < 500) {
        const message = fastifyError.message ?? "invalid request";
        return sendError(reply, new GatewayError("invalid_body", message, null, fastifyError.statusCode));
      }
      logger.error({ ...requestFields(request), err: error }, "request failed");
    } else if (error.rest === "internal") {
      // "Any other" (spec 2 §7): the body names the type and nothing more; the log says what happened.
      logger.warn(
        { ...requestFields(request), error_type: error.type, message: error.message },
        "request failed",
      );
    }
    return sendError(reply, error);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    sendError(reply, new GatewayError("not_found", `No route for ${request.method} ${path}`));
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
    sendError(reply, error);
    return;
  }
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    const detail = `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters`;
    sendError(reply, new GatewayError("uri_too_long", detail));
    return;
  }
  sendError(reply, new GatewayError("invalid_url", "the path is not a valid URL (bad percent-encoding)"));
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
    const refusal = new GatewayError("bad_request", "the request could not be read", null, status);
    const body = JSON.stringify(restAnswer(refusal).body);
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
