import type { FastifyInstance } from "fastify";
import { RequestRejected } from "../../../domain/errors.js";
import { jsonDepthRefusal, jsonTextNestsDeeper } from "../../../domain/limits/json-depth.js";

/** Stands for a body that is not valid JSON, so each route decides what that means. */
export const MALFORMED_BODY: unique symbol = Symbol("malformed body");

/**
 * A body nested deeper than `http.max_json_depth`, refused while it is parsed, before any route
 * runs: REST answers it as 400 `invalid_body`; `/mcp` answers a JSON-RPC -32600 carrying the
 * request's id, read from `parsed` (the body parsed without recursion, as `JSON.parse` does).
 */
export class BodyTooDeep extends RequestRejected {
  constructor(
    readonly maxDepth: number,
    readonly parsed: unknown,
  ) {
    super(400, "invalid_body", `request body has ${jsonDepthRefusal(maxDepth)}`);
  }
}

/**
 * Bodies are JSON whatever the content type says (`curl -d` sends a form type): an empty body reads
 * as `{}`, a malformed one as {@link MALFORMED_BODY}, and one nested deeper than `maxDepth` is
 * refused with {@link BodyTooDeep}, so that no code that walks values recursively ever sees it.
 */
export function registerJsonBody(app: FastifyInstance, maxDepth: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, {});
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(null, MALFORMED_BODY);
    }
    if (jsonTextNestsDeeper(text, maxDepth)) return done(new BodyTooDeep(maxDepth, value), undefined);
    done(null, value);
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
