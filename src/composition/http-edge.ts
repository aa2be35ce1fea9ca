import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { AuthorizationCodeSignIn } from "../adapters/auth/oidc/authorization-code.js";
import type { PromGatewayMetrics } from "../adapters/observability/metrics.js";
import type { ReplicaPresence } from "../app/coordination/replica-presence.js";
import { isAcceptableJwksUrl } from "../config/schema/auth.js";
import type { GatewayConfig } from "../config/schema.js";
import { buildHttpApp, type ConsoleEdgeOptions } from "../edges/http/build-app.js";
import { consoleBuilt } from "../edges/http/console/static-routes.js";
import { isLoopbackHost } from "../edges/http/origin-policy.js";
import type { ReadinessCheck } from "../edges/http/routes/health.js";
import { allowAnonymous } from "../edges/http/ws/handshake.js";
import { McpHttpEndpoint } from "../edges/mcp/http-endpoint.js";
import type { ServerStreamLimits } from "../edges/mcp/server-streams.js";
import type { AuthenticationEdges } from "./authentication.js";
import { boundUrl } from "./bound-url.js";
import type { Closers } from "./closers.js";
import type { EdgeServices } from "./edge-services.js";
import type { FrontDoor } from "./front-door.js";
import type { Storage } from "./open-storage.js";
import { describeProtectedResource } from "./open-token-verifier.js";
import { storeReadiness } from "./store-readiness.js";

export interface HttpEdgeDeps {
  /** What the edges see of the services (`edge-services.ts`). */
  services: EdgeServices;
  storage: Storage;
  authentication: AuthenticationEdges | null;
  frontDoor: FrontDoor | null;
  streamLimits?: ServerStreamLimits;
  /** Reports the endpoint's open sessions (`airlock_mcp_sessions_open`). */
  metrics?: PromGatewayMetrics;
  /** Told the address bound once an application listens (the replica registry's `address`). */
  replicas?: ReplicaPresence;
}

/**
 * The builder of the HTTP application (REST, health, `/mcp`): one MCP endpoint, made with the first
 * application and registered in `closers` then; each call builds an application around it, never
 * listening. `listen.host` is the address it will listen on: on a loopback address the MCP
 * endpoint refuses foreign Host headers.
 */
export function httpEdge(
  config: GatewayConfig,
  deps: HttpEdgeDeps,
  closers: Closers,
): (listen?: { host?: string }) => Promise<FastifyInstance> {
  const { services, storage, authentication, frontDoor } = deps;
  let endpoint: McpHttpEndpoint | null = null;
  return async (listen = {}) => {
    const browserGuard = {
      allowedOrigins: config.http.allowed_origins,
      loopbackOnly: listen.host === undefined || isLoopbackHost(listen.host),
    };
    if (!endpoint) {
      const opened = new McpHttpEndpoint(services, {
        ...browserGuard,
        ...(deps.streamLimits && { streamLimits: deps.streamLimits }),
        ...(frontDoor && {
          sessionServer: frontDoor.sessionServer,
          statelessServer: frontDoor.statelessServer,
          statelessCall: frontDoor.statelessCall,
          refusesTool: frontDoor.refusesTool,
          serverStream: true,
        }),
        ...(authentication && { authentication: authentication.http }),
        sessions: storage.repositories.mcpSessions,
        sessionCaps: {
          maxSessions: config.http.mcp_sessions.max_sessions,
          perPrincipal: config.http.mcp_sessions.max_per_principal,
          perTenant: config.http.mcp_sessions.max_per_tenant,
        },
      });
      closers.opened("MCP endpoint", () => opened.close());
      deps.metrics?.trackSessions(() => opened.sessionsByProtocol());
      endpoint = opened;
    }
    const mcp = endpoint;
    const app = await buildHttpApp(services, {
      maxJsonDepth: config.http.max_json_depth,
      accessLog: config.logging.access_log,
      timeouts: {
        headersS: config.http.headers_timeout_s,
        requestS: config.http.request_timeout_s,
        keepAliveS: config.http.keep_alive_timeout_s,
      },
      mountMcp: (app) => mcp.mount(app),
      browserGuard,
      ...(config.ui.enabled && { console: consoleEdge(config, authentication, services, storage) }),
      ...(authentication && {
        authentication: authentication.http,
        protectedResource: describeProtectedResource(config.auth.oidc),
      }),
      // With authentication off every caller is anonymous and may do everything (spec 2 §4).
      webSocket: {
        allowedOrigins: config.http.allowed_origins,
        apiKeyHeader: config.auth.api_key.header_name,
        authenticate: authentication?.streamAuthenticator ?? allowAnonymous,
      },
      readinessChecks: [
        storageReadiness(storage, config),
        ...(storage.availability
          ? [storeReadiness(storage.availability, config.persistence.readiness_grace_s, services.clock)]
          : []),
        ...(frontDoor?.readiness ? [frontDoor.readiness] : []),
      ],
    });
    const replicas = deps.replicas;
    if (replicas) {
      app.addHook("onListen", async () => {
        replicas.advertise(boundUrl(app.server.address()));
      });
    }
    return app;
  };
}

/** The built console: `dist/ui` of the package, whether this runs from `dist/` or from `src/`. */
const CONSOLE_ROOT = fileURLToPath(new URL("../../dist/ui", import.meta.url));

/** The console's session routes and files (docs/console.md); its files only once built. */
function consoleEdge(
  config: GatewayConfig,
  authentication: AuthenticationEdges | null,
  services: EdgeServices,
  storage: Storage,
): ConsoleEdgeOptions {
  const built = consoleBuilt(CONSOLE_ROOT);
  if (!built) {
    services.logger.warn(
      { path: config.ui.path },
      "the console is not built (npm run build): its path answers 404",
    );
  }
  const provider = authentication ? consoleOidcProvider(config.auth.oidc) : null;
  return {
    session: {
      authentication: authentication?.http ?? null,
      sessions: authentication?.consoleSessions ?? null,
      secureCookie: config.ui.secure_cookie,
      oidc: provider !== null,
    },
    ...(authentication &&
      provider && {
        oidc: {
          signIn: new AuthorizationCodeSignIn({
            ...provider,
            scopes: ["openid"],
            acceptUrl: isAcceptableJwksUrl,
            timeoutMs: OIDC_TIMEOUT_MS,
          }),
          obtainKey: async () => {
            const made = randomBytes(32).toString("base64url");
            const key = await storage.repositories.sharedSecrets.obtain("console_sign_in_key", made);
            return Buffer.from(key, "base64url");
          },
          authentication: authentication.http,
          sessions: authentication.consoleSessions,
          secureCookie: config.ui.secure_cookie,
          uiPath: config.ui.path,
        },
      }),
    ...(built && { files: { path: config.ui.path, root: CONSOLE_ROOT } }),
  };
}

/** How long a request to the identity provider (discovery, the code exchange) may take. */
const OIDC_TIMEOUT_MS = 10_000;

/**
 * The provider the console signs in through: the top-level `auth.oidc.issuer` with its
 * `client_id`, else the first listed issuer that has one (its own or the top-level one); null when
 * none has a client id (tokens are still accepted as bearer credentials; the console then offers
 * API keys only).
 */
function consoleOidcProvider(
  oidc: GatewayConfig["auth"]["oidc"],
): { issuer: string; clientId: string } | null {
  if (!oidc.enabled) return null;
  if (oidc.issuers.length === 0) {
    return oidc.issuer && oidc.client_id ? { issuer: oidc.issuer, clientId: oidc.client_id } : null;
  }
  for (const entry of oidc.issuers) {
    const clientId = entry.client_id ?? oidc.client_id;
    if (clientId) return { issuer: entry.issuer, clientId };
  }
  return null;
}

/** `/health/ready` answers 503 while durable storage degraded to memory (spec 2 §2 `event_store`). */
function storageReadiness(storage: Storage, config: GatewayConfig): ReadinessCheck {
  return {
    name: "event_store",
    check: () =>
      storage.degraded
        ? {
            ready: false,
            detail: {
              status: "unhealthy",
              configured_driver: config.event_store.driver,
              durable: false,
              detail: storage.degraded.reason,
            },
          }
        : { ready: true },
  };
}
