import type { FastifyInstance } from "fastify";
import { RequestRejected } from "../../../domain/errors.js";

/**
 * JSON bodies: an empty body reads as `{}` (clients often send a JSON content type on body-less
 * POSTs such as stop), a malformed one answers 400 `invalid_body`.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new RequestRejected(400, "invalid_body", "Request body is not valid JSON"), undefined);
    }
  });
}

/** The body as an object, or a 400 `invalid_body` for arrays, strings and numbers. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new RequestRejected(400, "invalid_body", "Request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}
