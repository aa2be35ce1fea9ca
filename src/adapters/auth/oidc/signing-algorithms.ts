/**
 * The JWS algorithms a token may be signed with: asymmetric ones only. `none` and the HMAC family
 * (HS256/384/512) are never accepted: with a public key set, an HMAC "signature" keyed with the
 * public key would be forgeable by anyone (the RS256-to-HS256 confusion).
 */
export const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

export type SigningAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

const ACCEPTABLE: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS);

export function isSigningAlgorithm(value: unknown): value is SigningAlgorithm {
  return typeof value === "string" && ACCEPTABLE.has(value);
}

/**
 * Checks an issuer's pinned list: non-empty and asymmetric only. Throws (at construction, never
 * while verifying) so a bad pin cannot silently widen or empty what is accepted.
 */
export function pinAlgorithms(issuer: string, algorithms: readonly string[]): readonly SigningAlgorithm[] {
  if (algorithms.length === 0) throw new Error(`OIDC issuer '${issuer}': no signing algorithm pinned`);
  for (const algorithm of algorithms) {
    if (!isSigningAlgorithm(algorithm)) {
      throw new Error(
        `OIDC issuer '${issuer}': signing algorithm '${algorithm}' is not accepted ` +
          `(only ${ASYMMETRIC_ALGORITHMS.join(", ")})`,
      );
    }
  }
  return [...new Set(algorithms)] as SigningAlgorithm[];
}
