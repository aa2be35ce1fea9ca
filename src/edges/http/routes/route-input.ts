import { unknownField } from "../../../app/validation.js";
import { objectBody } from "../plugins/json-body.js";

/**
 * An operation's input from a request body and what the route takes from its path (ids), the one
 * way every REST route with a body builds it. The body's fields are passed whole, so the
 * operation's strict input refuses any field it does not take (422 naming it) and nothing is
 * dropped on the way; a body field that repeats a path parameter (`mcp_server` on
 * `PATCH /mcp_servers/{id}`) is not one the route takes either, and is refused the same way rather
 * than silently overridden. An absent or empty body is `{}`.
 */
export function bodyWith(
  body: unknown,
  fromPath: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const fields = objectBody(body);
  for (const key of Object.keys(fromPath)) {
    if (Object.hasOwn(fields, key)) throw unknownField(key);
  }
  return { ...fields, ...fromPath };
}
