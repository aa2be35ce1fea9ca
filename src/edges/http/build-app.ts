import type { Server } from "node:http";
import Fastify, { type FastifyHttpOptions, type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { HttpAppServices } from "../../app/edge-services.js";
import { consoleOidcRoutes, type OidcRouteOptions } from "./console/oidc-routes.js";
import { type ConsoleSessionOptions, consoleSessionRoutes } from "./console/session-routes.js";
import { type ConsoleStaticOptions, consoleStaticRoutes } from "./console/static-routes.js";
import { type BrowserGuardOptions, createBrowserGuard } from "./origin-policy.js";
import { registerAccessLog } from "./plugins/access-log.js";
import { type HttpAuthentication, registerAuthentication } from "./plugins/authentication.js";
import { registerCollectionRedirects } from "./plugins/collection-redirects.js";
import {
  clientErrorHandler,
  frameworkErrors,
  MAX_PATH_PARAM_LENGTH,
  registerErrorHandling,
} from "./plugins/errors.js";
import { registerJsonBody } from "./plugins/json-body.js";
import { checkRequestShape } from "./plugins/request-shape.js";
import { registerRequestSpans } from "./plugins/request-spans.js";
import { approvalCallbackRoutes } from "./routes/approvals.js";
import { healthRoutes, type ReadinessCheck } from "./routes/health.js";
import { metricsRoutes, registerRequestMetrics } from "./routes/metrics.js";
import { operationRoutes } from "./routes/operation-routes.js";
import { type ProtectedResourceMetadata, protectedResourceRoutes } from "./routes/protected-resource.js";
import { type EventStreamOptions, registerEventStream } from "./ws/register-event-stream.js";

export const API_PREFIX = "/api";

export interface HttpEdgeOptions {
  /**
   * Deepest nesting of arrays and objects accepted in a request body (`http.max_json_depth`): REST
   * bodies and MCP messages alike; a deeper one is refused before any route runs.
   */
  maxJsonDepth: number;
  /** Socket timeouts against slow or idle clients; absent, Node's and fastify's defaults. */
  timeouts?: HttpTimeouts;
  logger?: FastifyServerOptions["logger"];
  /** `logging.access_log`: one log line per request after its response. */
  accessLog?: boolean;
  readinessChecks?: readonly ReadinessCheck[];
  /** Mounts the MCP endpoint (`/mcp`) on the instance; supplied by the composition. */
  mountMcp?: (app: FastifyInstance) => void | Promise<void>;
  /** Largest accepted request body; above it the answer is 413. */
  bodyLimitBytes?: number;
  /** Mounts `/api/ws/events` (docs/websocket.md); absent, no WebSocket endpoint is served. */
  webSocket?: EventStreamOptions;
  /** With authentication on: who may call which route (absent, every caller is anonymous). */
  authentication?: HttpAuthentication;
  /** RFC 9728 metadata at `/.well-known/oauth-protected-resource` (when `oidc.resource_uri` is set). */
  protectedResource?: ProtectedResourceMetadata | null;
  /**
   * Refuses REST requests a web page could make (a foreign `Origin`; on loopback, a foreign
   * `Host`), as `/mcp` does. Absent, nothing is refused (tests that build an app of their own).
   */
  browserGuard?: BrowserGuardOptions;
  /** The operator console (`ui`, docs/console.md); absent, neither it nor its session routes are served. */
  console?: ConsoleEdgeOptions;
}

export interface ConsoleEdgeOptions {
  session: ConsoleSessionOptions;
  /** Sign-in through the OpenID Connect provider, when configured. */
  oidc?: OidcRouteOptions;
  /** Absent when the console was not built (`npm run build`): its path then answers 404. */
  files?: ConsoleStaticOptions;
}

/**
 * Socket timeouts of the HTTP server (`http.headers_timeout_s`, `request_timeout_s`,
 * `keep_alive_timeout_s`), in seconds. Headers and request count from a request's first byte and
 * end once it has arrived whole: an answer may take as long as it needs, and a stream (SSE, a
 * WebSocket once upgraded) is never cut by them. Keep-alive is the longest idle time between
 * requests on one connection.
 */
export interface HttpTimeouts {
  headersS: number;
  requestS: number;
  keepAliveS: number;
}

/**
 * How often Node looks for requests past their headers or request timeout. Its default, 30 s, would
 * let a slow client hold a connection up to 30 s longer than the timeouts say; once a second keeps
 * them within a second of their value, for the price of one pass over the open connections.
 */
const TIMEOUT_CHECK_MS = 1000;

/** Four MiB, the MCP SDK's own request body limit, applied to REST bodies too. */
const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** Builds the HTTP application; it never listens (the CLI does, tests use `inject()`). */
export async function buildHttpApp(
  services: HttpAppServices,
  options: HttpEdgeOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT,
    // Collection paths differ only by the trailing slash; the bare one redirects. A path parameter
    // may be as long as a session id (1-128 characters, spec 1 "Session"); the router's default is 100.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
    // `X-Forwarded-For` is read only from the trusted proxies (`MCP_TRUSTED_PROXIES`).
    trustProxy: options.authentication?.proxies.trustProxy ?? false,
    ...(options.timeouts && serverTimeouts(options.timeouts)),
  });
  // First: what every later hook logs carries the request's trace ids.
  registerRequestSpans(app, services.tracer);
  registerErrorHandling(app, services.logger);
  if (options.accessLog) registerAccessLog(app, services.logger);
  registerJsonBody(app, options.maxJsonDepth);
  if (options.authentication) registerAuthentication(app, services, options.authentication, API_PREFIX);
  registerRequestMetrics(app, services);
  healthRoutes(app, services, options.readinessChecks ?? []);
  metricsRoutes(app, services, options.authentication);
  if (options.protectedResource) protectedResourceRoutes(app, options.protectedResource);
  await app.register(
    async (api) => {
      if (options.browserGuard) refuseForeignRequests(api, options.browserGuard);
      // The approval routes answer a bad body or id in their own flat shape (spec 2 §7).
      checkRequestShape(api, `${API_PREFIX}/approvals`);
      registerCollectionRedirects(api, API_PREFIX);
      // Every route that runs an operation, from the catalog's REST bindings.
      operationRoutes(api, services);
      if (options.console) consoleSessionRoutes(api, services, options.console.session);
      if (options.console?.oidc) consoleOidcRoutes(api, options.console.oidc);
      healthRoutes(api, services, options.readinessChecks ?? []);
    },
    { prefix: API_PREFIX },
  );
  // Signed chat callbacks: outside `/api` and its route rules, the signature being the credential.
  await approvalCallbackRoutes(app, services);
  if (options.webSocket) await registerEventStream(app, services, options.webSocket, API_PREFIX);
  if (options.mountMcp) await options.mountMcp(app);
  if (options.console?.files) await consoleStaticRoutes(app, options.console.files);
  return app;
}

/**
 * 403 `{"error":"forbidden","detail":"Forbidden: Origin <origin>"}` for a request from a web page
 * (see {@link createBrowserGuard}), before authentication: with authentication off (the default)
 * a page on any site could otherwise register and start servers on the user's machine.
 */
function refuseForeignRequests(scope: FastifyInstance, options: BrowserGuardOptions): void {
  const foreign = createBrowserGuard(options);
  scope.addHook("onRequest", (request, reply, done) => {
    const refusal = foreign(request.headers);
    if (refusal === null) return done();
    reply.status(403).send({ error: "forbidden", detail: refusal });
  });
}

/**
 * The Node server options of `timeouts`. Node refuses a headers timeout longer than the request
 * timeout, which covers the headers too: the shorter one applies to both. fastify sets the request
 * and keep-alive timeouts on the server it creates; the headers timeout and the checking interval
 * are options of the server's creation.
 */
function serverTimeouts(timeouts: HttpTimeouts): Partial<FastifyHttpOptions<Server>> {
  const requestTimeout = timeouts.requestS * 1000;
  return {
    requestTimeout,
    keepAliveTimeout: timeouts.keepAliveS * 1000,
    http: {
      requestTimeout,
      headersTimeout: Math.min(timeouts.headersS * 1000, requestTimeout),
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
  };
}
