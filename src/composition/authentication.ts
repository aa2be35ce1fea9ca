import type { AccessEvents } from "../app/auth/access-events.js";
import { Authenticator } from "../app/auth/authenticator.js";
import { ConsoleSessions } from "../app/auth/console-sessions.js";
import type { Principal } from "../app/context.js";
import type { Clock } from "../app/ports/clock.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { TokenVerifier } from "../app/ports/token-verifier.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import { API_KEY_PREFIX } from "../domain/auth/api-key-format.js";
import { TrustedProxies } from "../edges/http/client-address.js";
import type { HttpAuthentication } from "../edges/http/plugins/authentication.js";
import { protectedResourceMetadataUrl } from "../edges/http/routes/protected-resource.js";
import type { StreamAuthenticator } from "../edges/http/ws/handshake.js";

/** Authentication as every edge uses it, when `auth.enabled`. */
export interface AuthenticationEdges {
  readonly authenticator: Authenticator;
  readonly http: HttpAuthentication;
  /** The console's sessions (docs/console.md), which the session cookie authenticates by. */
  readonly consoleSessions: ConsoleSessions;
  readonly streamAuthenticator: StreamAuthenticator;
  /** `auth.stdio.principal`, or undefined: the stdio client then has no identity. */
  readonly stdioPrincipal: Principal | undefined;
}

export interface AuthenticationDeps {
  config: GatewayConfig;
  env: EnvSettings;
  repositories: StoreRepositories;
  tokens: TokenVerifier | null;
  accessEvents?: AccessEvents;
  hasher: Hasher;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
}

/** Builds authentication for the HTTP, MCP and WebSocket edges; null when `auth.enabled` is false. */
export function openAuthentication(deps: AuthenticationDeps): AuthenticationEdges | null {
  const { config, env } = deps;
  const auth = config.auth;
  if (!auth.enabled) return null;
  const lockout = auth.rate_limit;
  const consoleSessions = new ConsoleSessions({
    store: deps.repositories.consoleSessions,
    apiKeys: deps.repositories.apiKeys,
    hasher: deps.hasher,
    ids: deps.ids,
    clock: deps.clock,
    ttlSeconds: config.ui.session_ttl_s,
  });
  const authenticator = new Authenticator({
    sessions: consoleSessions,
    apiKeys: deps.repositories.apiKeys,
    hasher: deps.hasher,
    clock: deps.clock,
    logger: deps.logger,
    apiKeysEnabled: auth.api_key.enabled,
    tokens: deps.tokens,
    allowAnonymous: auth.allow_anonymous,
    ...(deps.accessEvents && { events: deps.accessEvents }),
    lockout: lockout.enabled
      ? {
          maxAttempts: lockout.max_attempts,
          windowSeconds: lockout.window_seconds,
          lockoutSeconds: lockout.lockout_seconds,
        }
      : null,
  });
  const proxies = new TrustedProxies(env.trustedProxies);
  const resourceUri = auth.oidc.enabled ? auth.oidc.resource_uri : undefined;
  const http: HttpAuthentication = {
    authenticator,
    proxies,
    apiKeyHeader: auth.api_key.header_name,
    resourceMetadataUrl: resourceUri ? protectedResourceMetadataUrl(resourceUri) : null,
  };
  const declared = auth.stdio.principal;
  return {
    authenticator,
    http,
    consoleSessions,
    // `?token=` carries either kind of credential: an API key by its prefix, a JWT otherwise.
    streamAuthenticator: async (credentials, request, judge = "handshake") => {
      const token = credentials.token;
      const viaQuery = token?.startsWith(API_KEY_PREFIX) ? { apiKey: token } : { bearer: token };
      const given = {
        apiKey: credentials.apiKey ?? viaQuery.apiKey,
        bearer: credentials.bearer ?? viaQuery.bearer,
        session: credentials.session,
        clientAddress: proxies.clientAddress(request),
        proxyAddress: proxies.proxyOf(request),
      };
      const outcome = await (judge === "recheck"
        ? authenticator.recheck(given)
        : authenticator.authenticate(given));
      return outcome.ok ? outcome : { ok: false, reason: outcome.message };
    },
    stdioPrincipal: declared
      ? { id: declared.id, type: "stdio", tenant_id: declared.tenant_id, roles: declared.roles }
      : undefined,
  };
}
