import type { KeyCacheSettings } from "../adapters/auth/oidc/issuer-keys.js";
import { type OidcIssuerSettings, OidcTokenVerifier } from "../adapters/auth/oidc/oidc-token-verifier.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import type { TokenVerifier } from "../app/ports/token-verifier.js";
import { isAcceptableJwksUrl } from "../config/schema/auth.js";
import type { OidcConfig } from "../config/schema.js";
import type { ProtectedResourceMetadata } from "../edges/http/routes/protected-resource.js";

/**
 * The trusted issuers of `auth.oidc`: the `issuers` list when non-empty (inheritance already
 * resolved by the schema), else the top-level issuer. `resource_uri`, when set, is the audience of
 * every issuer and overrides their own `audience` (spec 2 §5).
 */
export function oidcIssuerSettings(oidc: OidcConfig): OidcIssuerSettings[] {
  const entries =
    oidc.issuers.length > 0
      ? oidc.issuers
      : oidc.issuer === undefined
        ? []
        : [
            {
              issuer: oidc.issuer,
              principal_prefix: oidc.principal_prefix,
              audience: oidc.audience,
              jwks_uri: oidc.jwks_uri,
              max_token_lifetime_seconds: oidc.max_token_lifetime_seconds,
              subject_claim: oidc.subject_claim,
              groups_claim: oidc.groups_claim,
              email_claim: oidc.email_claim,
              tenant_claim: oidc.tenant_claim,
              session_id_claim: oidc.session_id_claim,
              require_tenant: oidc.require_tenant,
              strict_tenant_audience: oidc.strict_tenant_audience,
              tenant_audiences: oidc.tenant_audiences,
            },
          ];
  return entries.map((entry) => ({
    issuer: entry.issuer,
    audience: oidc.resource_uri ?? entry.audience ?? null,
    jwksUri: entry.jwks_uri ?? null,
    maxTokenLifetimeSeconds: entry.max_token_lifetime_seconds,
    // Never inherited by list entries (the schema sees to it): it tells one issuer's subjects from another's.
    principalPrefix: entry.principal_prefix ?? "",
    claims: {
      subject: entry.subject_claim,
      groups: entry.groups_claim,
      email: entry.email_claim,
      tenant: entry.tenant_claim,
      sessionId: entry.session_id_claim,
    },
    requireTenant: entry.require_tenant,
    strictTenantAudience: entry.strict_tenant_audience,
    tenantAudiences: entry.tenant_audiences,
  }));
}

/**
 * Builds the JWT verifier of `auth.oidc`, or null while `auth.oidc.enabled` is false (bearer tokens
 * are then refused by the authenticator). `MCP_JWT_MAX_TOKEN_LIFETIME` is already folded into the
 * configuration by the loader. Keys are fetched on the first token of each issuer, not here, so a
 * provider that is down at start delays nothing but its own tokens. Throws on a configuration the
 * schema let through but the verifier cannot honour (an issuer listed twice).
 */
export function openTokenVerifier(
  oidc: OidcConfig,
  deps: { clock: Clock; logger: Logger; keyCache?: Partial<KeyCacheSettings> },
): TokenVerifier | null {
  if (!oidc.enabled) return null;
  const issuers = oidcIssuerSettings(oidc);
  for (const issuer of issuers) {
    if (issuer.audience === null && !issuer.strictTenantAudience) {
      deps.logger.warn(
        { issuer: issuer.issuer },
        "OIDC issuer without audience or resource_uri: its tokens are accepted whatever their aud",
      );
    }
  }
  const verifier = new OidcTokenVerifier({
    issuers,
    clockSkewLeewaySeconds: oidc.clock_skew_leeway_seconds,
    acceptKeyUrl: isAcceptableJwksUrl,
    clock: deps.clock,
    logger: deps.logger,
    keyCache: deps.keyCache,
  });
  deps.logger.info(
    {
      issuers: issuers.map((issuer) => issuer.issuer),
      resource_uri: oidc.resource_uri ?? null,
    },
    "JWT verification on",
  );
  return verifier;
}

/**
 * The RFC 9728 document's settings: null (the route answers 404) unless OIDC is on and
 * `oidc.resource_uri` is set. The authorization servers are the trusted issuers.
 */
export function describeProtectedResource(oidc: OidcConfig): ProtectedResourceMetadata | null {
  if (!oidc.enabled || oidc.resource_uri === undefined) return null;
  return {
    resource: oidc.resource_uri,
    authorizationServers: oidcIssuerSettings(oidc).map((issuer) => issuer.issuer),
  };
}
