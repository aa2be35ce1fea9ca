/**
 * `auth`: authentication (API keys, JWT/OIDC), the external policy engine, storage of keys and
 * roles, the login-attempt lockout, static role assignments and the stdio principal.
 */
import * as z from "zod";
import { cleanChecker } from "./clean.js";
import {
  addError,
  addWarning,
  bool,
  httpUrl,
  intAtLeast,
  isPlainObject,
  mapOf,
  nonBlank,
  numberAbove,
  oneOf,
  rule,
  section,
  str,
  stringList,
} from "./primitives.js";
import { forwardIssues } from "./tool-policy.js";

/** RFC 9110 token: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const claimDefaults = {
  subject_claim: "sub",
  groups_claim: "groups",
  email_claim: "email",
  tenant_claim: "tenant_id",
  session_id_claim: "sid",
} as const;

/** Spec 2 §8: JWT lifetime cap and clock-skew leeway. */
const DEFAULT_MAX_TOKEN_LIFETIME_S = 3600;
const DEFAULT_CLOCK_SKEW_S = 60;

const PRINCIPAL_PREFIX = /^[A-Za-z0-9._:@/-]{1,64}$/;

/**
 * Namespaces an issuer's subjects: its principals are `<prefix><sub>`, so a second issuer's
 * `sub: admin` is not the API-key principal `admin`. Unset keeps the spec's bare subject.
 */
function principalPrefix() {
  return z
    .string(rule("must be a string"))
    .regex(PRINCIPAL_PREFIX, "must be 1-64 letters, digits or . _ : @ / - (for example 'okta:')");
}

const issuerEntrySchema = z.strictObject(
  {
    issuer: nonBlank("must be a non-empty issuer identifier"),
    principal_prefix: principalPrefix().optional(),
    audience: nonBlank().optional(),
    jwks_uri: httpUrl().optional(),
    client_id: nonBlank().optional(),
    max_token_lifetime_seconds: intAtLeast(0).optional(),
    subject_claim: nonBlank().optional(),
    groups_claim: nonBlank().optional(),
    email_claim: nonBlank().optional(),
    tenant_claim: nonBlank().optional(),
    session_id_claim: nonBlank().optional(),
    require_tenant: bool().optional(),
    strict_tenant_audience: bool().optional(),
    tenant_audiences: mapOf(nonBlank(), "must be a mapping of tenant ids to audiences").optional(),
  },
  rule("must be a mapping with at least issuer"),
);

const oidcSchema = section({
  enabled: bool().default(false),
  issuer: nonBlank("must be a non-empty issuer identifier").optional(),
  principal_prefix: principalPrefix().optional(),
  audience: nonBlank().optional(),
  jwks_uri: httpUrl().optional(),
  client_id: nonBlank().optional(),
  resource_uri: httpUrl().optional(),
  issuers: z.array(issuerEntrySchema, rule("must be a list of issuer mappings")).default(() => []),
  subject_claim: nonBlank().default(claimDefaults.subject_claim),
  groups_claim: nonBlank().default(claimDefaults.groups_claim),
  email_claim: nonBlank().default(claimDefaults.email_claim),
  tenant_claim: nonBlank().default(claimDefaults.tenant_claim),
  session_id_claim: nonBlank().default(claimDefaults.session_id_claim),
  // 0 disables the cap.
  max_token_lifetime_seconds: intAtLeast(0).default(DEFAULT_MAX_TOKEN_LIFETIME_S),
  clock_skew_leeway_seconds: intAtLeast(0).default(DEFAULT_CLOCK_SKEW_S),
  require_tenant: bool().default(false),
  strict_tenant_audience: bool().default(false),
  tenant_audiences: mapOf(nonBlank(), "must be a mapping of tenant ids to audiences").default(() => ({})),
}).transform((oidc) => ({
  ...oidc,
  // Omitted keys of an issuer entry inherit the top-level values. `issuer` and `jwks_uri` never
  // do: another issuer's key set must never verify this issuer's tokens.
  // `principal_prefix` is not inherited either: it tells one issuer's subjects from another's.
  issuers: oidc.issuers.map((entry) => ({
    issuer: entry.issuer,
    principal_prefix: entry.principal_prefix,
    audience: entry.audience ?? oidc.audience,
    jwks_uri: entry.jwks_uri,
    client_id: entry.client_id ?? oidc.client_id,
    max_token_lifetime_seconds: entry.max_token_lifetime_seconds ?? oidc.max_token_lifetime_seconds,
    subject_claim: entry.subject_claim ?? oidc.subject_claim,
    groups_claim: entry.groups_claim ?? oidc.groups_claim,
    email_claim: entry.email_claim ?? oidc.email_claim,
    tenant_claim: entry.tenant_claim ?? oidc.tenant_claim,
    session_id_claim: entry.session_id_claim ?? oidc.session_id_claim,
    require_tenant: entry.require_tenant ?? oidc.require_tenant,
    strict_tenant_audience: entry.strict_tenant_audience ?? oidc.strict_tenant_audience,
    tenant_audiences: entry.tenant_audiences ?? oidc.tenant_audiences,
  })),
}));

export type OidcConfig = z.output<typeof oidcSchema>;
export type OidcIssuerConfig = OidcConfig["issuers"][number];

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The JWKS fetch URL must be https, except towards the local machine. */
export function isAcceptableJwksUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
  } catch {
    return false;
  }
}

const JWKS_RULE =
  "must be an https:// URL (http:// only for localhost, 127.0.0.1 and ::1) to fetch signing keys from";

/** `auth.stdio.principal`: a block without `id` declares nobody and is ignored with a warning. */
const stdioPrincipalSchema = z
  .unknown()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) {
      addError(ctx, [], "must be a mapping with id, tenant_id and roles");
      return undefined;
    }
    if (value.id === undefined) {
      addWarning(ctx, [], "ignored: a stdio principal without id declares nobody", {
        warning: "config_key_ignored",
        fix: { kind: "delete" },
      });
      return undefined;
    }
    const parsed = z
      .strictObject({
        id: nonBlank(),
        tenant_id: nonBlank(),
        roles: stringList("role names").default(() => ["viewer"]),
      })
      .safeParse(value);
    if (parsed.success) return parsed.data;
    forwardIssues(ctx, parsed.error.issues);
    return undefined;
  })
  .optional();

const SCOPE_RULE = "must be global or tenant:<tenant_id>";

export const authSchema = section({
  enabled: bool().default(false),
  allow_anonymous: bool().default(false),
  api_key: section({
    enabled: bool().default(true),
    header_name: z
      .string(rule("must be a valid HTTP header name"))
      .regex(HEADER_NAME, { error: "must be a valid HTTP header name" })
      .default("X-API-Key"),
  }),
  oidc: oidcSchema,
  opa: section({
    enabled: bool().default(false),
    url: httpUrl().default("http://localhost:8181"),
    policy_path: nonBlank().default("v1/data/mcp/authz/allow"),
    timeout: numberAbove(0, 60).default(5),
  }),
  // Key and role storage. `driver` keeps no default here: an explicit value may contradict
  // persistence.backend, which the top-level schema checks before filling `memory` in.
  storage: z.preprocess(
    (value) => (value === null ? undefined : value),
    z
      .looseObject(
        {
          driver: oneOf(["memory", "sqlite", "postgresql"]).optional(),
          path: nonBlank().optional(),
          host: nonBlank().optional(),
        },
        rule("must be a mapping"),
      )
      .prefault({}),
  ),
  // Login-attempt lockout (spec 3: 10 failures per 60 s per client address lock it out 300 s).
  rate_limit: section({
    enabled: bool().default(true),
    max_attempts: intAtLeast(1).default(10),
    window_seconds: intAtLeast(1).default(60),
    lockout_seconds: intAtLeast(1).default(300),
  }),
  role_assignments: z
    .array(
      z.strictObject(
        {
          principal: nonBlank(),
          role: nonBlank(),
          scope: str(SCOPE_RULE)
            .refine((scope) => scope === "global" || /^tenant:\S+$/.test(scope), { error: SCOPE_RULE })
            .default("global"),
        },
        rule("must be a mapping with principal, role and scope"),
      ),
      rule("must be a list of {principal, role, scope}"),
    )
    .default(() => []),
  stdio: section({ principal: stdioPrincipalSchema }),
}).superRefine((auth, ctx) => {
  const oidc = auth.oidc;
  if (!cleanChecker(ctx.issues)(["oidc"]) || !oidc.enabled) return;
  if (oidc.issuers.length === 0) {
    if (oidc.issuer === undefined) {
      addError(ctx, ["oidc", "issuer"], "is required when oidc.enabled is true (or list oidc.issuers)");
    } else if (!isAcceptableJwksUrl(oidc.jwks_uri ?? oidc.issuer)) {
      addError(ctx, ["oidc", oidc.jwks_uri === undefined ? "issuer" : "jwks_uri"], JWKS_RULE);
    }
  }
  // Tokens pick their issuer entry by `iss`: two entries for one issuer would leave it ambiguous.
  const seen = new Set<string>();
  oidc.issuers.forEach((entry, index) => {
    if (seen.has(entry.issuer)) {
      addError(ctx, ["oidc", "issuers", index, "issuer"], "is listed twice: each issuer may appear once");
    }
    seen.add(entry.issuer);
    if (!isAcceptableJwksUrl(entry.jwks_uri ?? entry.issuer)) {
      addError(
        ctx,
        ["oidc", "issuers", index, entry.jwks_uri === undefined ? "issuer" : "jwks_uri"],
        JWKS_RULE,
      );
    }
  });
});

export type AuthConfig = z.output<typeof authSchema>;
