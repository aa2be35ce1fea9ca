import type { JWTPayload } from "jose";

/** Which claim carries each part of the identity (`oidc.*_claim`, per issuer). */
export interface ClaimKeys {
  readonly subject: string;
  readonly groups: string;
  readonly email: string;
  readonly tenant: string;
  readonly sessionId: string;
}

export interface MappedClaims {
  readonly subject: string;
  /** `<principal prefix><subject>`: the subject when the issuer has no prefix. */
  readonly principalId: string;
  readonly groups: readonly string[];
  readonly email: string | null;
  readonly tenant: string | null;
  readonly sessionId: string | null;
}

export type ClaimMapping =
  | { readonly ok: true; readonly claims: MappedClaims }
  | { readonly ok: false; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value of claim `key`: the top-level claim of that exact name first (namespaced claims such
 * as `https://example.com/groups` hold dots), else, for a dotted key, the nested path
 * (`realm_access.roles`). Only own properties are read, so `__proto__` or `constructor` never
 * resolve to something the token did not carry.
 */
export function readClaim(payload: JWTPayload, key: string): unknown {
  if (Object.hasOwn(payload, key)) return payload[key];
  if (!key.includes(".")) return undefined;
  let current: unknown = payload;
  for (const segment of key.split(".")) {
    if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function optionalText(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * Maps the verified claims to an identity. The subject is required; groups are a list of strings
 * or one string; a tenant claim, when present, must be a non-empty string. Email and session id
 * are informational: any other shape reads as absent. Groups and tenant of the wrong shape refuse
 * the token rather than being dropped, since both decide what the bearer may do.
 *
 * The principal is the subject behind the issuer's `principalPrefix` (`okta:` + `admin` is
 * `okta:admin`): every issuer is trusted for the subjects it signs, so without a prefix two issuers
 * (or an issuer and the API keys) name the same principal with the same subject.
 */
export function mapClaims(payload: JWTPayload, keys: ClaimKeys, principalPrefix = ""): ClaimMapping {
  const subject = optionalText(readClaim(payload, keys.subject));
  if (subject === null) return { ok: false, reason: "token has no subject" };

  const rawGroups = readClaim(payload, keys.groups);
  let groups: string[];
  if (rawGroups === undefined || rawGroups === null) groups = [];
  else if (typeof rawGroups === "string") groups = rawGroups.trim() === "" ? [] : [rawGroups];
  else if (Array.isArray(rawGroups) && rawGroups.every((group) => typeof group === "string"))
    groups = rawGroups.filter((group) => group.trim() !== "");
  else return { ok: false, reason: "groups claim must be a string or a list of strings" };

  const rawTenant = readClaim(payload, keys.tenant);
  let tenant: string | null = null;
  if (rawTenant !== undefined && rawTenant !== null) {
    tenant = optionalText(rawTenant);
    if (tenant === null) return { ok: false, reason: "tenant claim must be a non-empty string" };
  }

  return {
    ok: true,
    claims: {
      subject,
      principalId: `${principalPrefix}${subject}`,
      groups: [...new Set(groups)],
      email: optionalText(readClaim(payload, keys.email)),
      tenant,
      sessionId: optionalText(readClaim(payload, keys.sessionId)),
    },
  };
}
