import type { FastifyInstance } from "fastify";
import type { HttpRequestSpan, Tracer } from "../../../app/ports/tracer.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The request's SERVER span while tracing is on. */
    traceSpan?: HttpRequestSpan;
  }
}

/**
 * A SERVER span for each HTTP request, named after its route (`POST /mcp`, `GET /api/mcp_servers/:id`),
 * continuing the `traceparent` header's trace, with the request handled inside it: the MCP
 * request spans of `/mcp` and the tool calls it makes are its children, and log lines written
 * meanwhile carry its ids. Nothing is registered while tracing is off.
 */
export function registerRequestSpans(app: FastifyInstance, tracer: Tracer | undefined): void {
  if (tracer === undefined || !tracer.enabled) return;
  app.addHook("onRequest", (request, _reply, done) => {
    const query = request.url.indexOf("?");
    const span = tracer.startHttpRequest({
      method: request.method,
      route: request.routeOptions.url,
      path: query === -1 ? request.url : request.url.slice(0, query),
      headers: request.headers,
    });
    request.traceSpan = span;
    // What runs after this hook (the next hooks, the handler and their awaits) runs in the span.
    span.run(done);
  });
  app.addHook("onResponse", (request, reply, done) => {
    request.traceSpan?.endHttp(reply.statusCode);
    done();
  });
}
