import type { FastifyInstance } from "fastify";
import { RequestRejected } from "../../../domain/errors.js";

/** Stands for a body that is not valid JSON, so each route decides what that means. */
export const MALFORMED_BODY: unique symbol = Symbol("malformed body");

/**
 * Bodies are JSON whatever the content type says (`curl -d` sends a form type): an empty body reads
 * as `{}`, a malformed one as {@link MALFORMED_BODY}.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, MALFORMED_BODY);
    }
  });
}

/** The body as an object, or a 400 `invalid_body` for malformed JSON, arrays, strings and numbers. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === MALFORMED_BODY)
    throw new RequestRejected(400, "invalid_body", "request body is not valid JSON");
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RequestRejected(400, "invalid_body", "request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** The body as an object when it is one, otherwise `{}`: for routes whose body is optional. */
export function optionalObjectBody(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
