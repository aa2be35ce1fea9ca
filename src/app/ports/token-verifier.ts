/** What a verified JWT says of its bearer, after the claim mapping of its issuer. */
export interface VerifiedToken {
  readonly issuer: string;
  /** The subject claim (`oidc.subject_claim`), as the token carries it. */
  readonly subject: string;
  /**
   * The principal the token stands for: the subject behind the issuer's `principal_prefix`
   * (`<prefix><subject>`), the bare subject when the issuer has none. Roles, sessions and every
   * record of the caller key on it.
   */
  readonly principal_id: string;
  readonly tenant_id: string | null;
  /** The groups claim; each group naming a role grants it at global scope. */
  readonly groups: readonly string[];
  readonly email: string | null;
  readonly session_id: string | null;
  /** `exp`, epoch seconds. */
  readonly expires_at: number;
}

export type TokenVerdict =
  | { readonly ok: true; readonly token: VerifiedToken }
  /** `reason` is safe to show: it never holds key material or the token. */
  | { readonly ok: false; readonly reason: string };

/**
 * Verifies a JWT sent as `Authorization: Bearer` against the configured issuers (signature with the
 * issuer's pinned algorithms and its JWKS, `iss`, `aud`, `exp`, `nbf`, lifetime, tenant rules).
 * Never throws: every failure is a verdict.
 */
export interface TokenVerifier {
  verify(jwt: string): Promise<TokenVerdict>;
}
