import type { FastifyInstance } from "fastify";
import { objectBody } from "./json-body.js";

/**
 * Checks, on every route of `scope` but those under `exceptUnder` (which answer in their own flat
 * shape, spec 2 §7), what no route should see, before it runs, so that nothing happens:
 *
 * - an empty path segment where the route has a parameter (`DELETE /mcp_servers/`) names no
 *   resource: 404 `not_found`, as a path no route serves;
 * - a body that was sent and is not a JSON object: 400 `invalid_body`, on routes that need no body
 *   (start, stop, reload, key revocation, ...) too. An empty body is no body.
 */
export function checkRequestShape(scope: FastifyInstance, exceptUnder: string): void {
  scope.addHook("preValidation", (request, reply, done) => {
    const body = request.body;
    const plainBody =
      body === undefined || (typeof body === "object" && body !== null && !Array.isArray(body));
    const params = request.params as Record<string, unknown> | undefined;
    const emptyParam = params !== undefined && Object.values(params).some((value) => value === "");
    if ((plainBody && !emptyParam) || request.routeOptions.url?.startsWith(exceptUnder)) return done();
    if (emptyParam) {
      reply.callNotFound();
      return;
    }
    try {
      objectBody(body);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
