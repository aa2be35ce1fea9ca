import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from "fastify";
import { NO_CREDENTIALS } from "../../../app/auth/authenticator.js";
import type { MetricsRouteServices, RequestMetricsServices } from "../../../app/edge-services.js";
import { ROUTE_ONLY } from "../../../app/rest-routes.js";
import { GatewayError } from "../../../domain/errors.js";
import {
  authenticateRequest,
  type HttpAuthentication,
  sendAuthenticationFailure,
} from "../plugins/authentication.js";
import { hooksOf } from "../route-hooks.js";

/**
 * Times every HTTP request by route pattern (never the raw URL, whose ids would explode the label
 * set). Observed after the response is sent, off the request's own time. Each route gets a hook
 * of its own that knows its pattern (reading it from the request builds an object per request);
 * a request no route matched is timed as `unmatched`.
 */
export function registerRequestMetrics(app: FastifyInstance, services: RequestMetricsServices): void {
  const metrics = services.metrics;
  if (!metrics) return;
  const observe = (route: string, request: FastifyRequest, reply: FastifyReply): void =>
    metrics.observeHttpRequest({
      method: request.method,
      route,
      status_code: reply.statusCode,
      duration_seconds: reply.elapsedTime / 1000,
    });
  app.addHook("onRoute", (route) => {
    const url = route.url;
    const timed: onResponseHookHandler = (request, reply, done) => {
      observe(url, request, reply);
      done();
    };
    route.onResponse = [...hooksOf(route.onResponse), timed];
  });
  app.addHook("onResponse", (request, reply, done) => {
    if (request.is404) observe("unmatched", request, reply);
    done();
  });
}

/**
 * `GET /metrics`: the Prometheus text exposition, outside `/api` where scrapers expect it. With
 * authentication off it is open, like the health probes. With it on, the scraper authenticates
 * (API key header or bearer token) and is admitted by the catalog's `metrics` entry (`metrics:read`,
 * the permission of `gateway_metrics`): metric labels name servers, tools and tenants' budgets.
 */
export function metricsRoutes(
  app: FastifyInstance,
  services: MetricsRouteServices,
  authentication: HttpAuthentication | undefined,
): void {
  const metrics = services.metrics;
  if (!metrics) return;
  app.get("/metrics", async (request, reply) => {
    if (authentication) {
      const outcome = await authenticateRequest(request, authentication);
      if (!outcome.ok) return sendAuthenticationFailure(reply, outcome, authentication);
      // Admitted by the catalog's entry for the route: what `gateway_metrics` needs; an anonymous
      // caller passes only with `auth.allow_anonymous`, as on the tool path.
      const ctx = {
        principal: outcome.principal,
        authenticated: outcome.authenticated,
        channel: "rest" as const,
      };
      try {
        await services.operations.admit(ROUTE_ONLY.metrics, ctx, { route: "GET /metrics" });
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        if (error.type === "AuthenticationError")
          return sendAuthenticationFailure(
            reply,
            { ok: false, message: NO_CREDENTIALS, method: "none" },
            authentication,
          );
        return reply.status(403).send({
          error: {
            code: "AccessDeniedError",
            message: `Access denied: ${ROUTE_ONLY.metrics.permissions.join(" and ")} permission required`,
            details: null,
          },
        });
      }
    }
    const text = await metrics.exposition();
    return reply.header("content-type", metrics.contentType).send(text);
  });
}
