import {
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from "jose";
import type { Clock } from "../../../app/ports/clock.js";
import type { Logger } from "../../../app/ports/logger.js";
import type { TokenVerdict, TokenVerifier, VerifiedToken } from "../../../app/ports/token-verifier.js";
import { type ClaimKeys, mapClaims } from "./claim-mapping.js";
import { DEFAULT_KEY_CACHE, IssuerKeys, type KeyCacheSettings, KeysUnavailable } from "./issuer-keys.js";
import { ASYMMETRIC_ALGORITHMS, pinAlgorithms, type SigningAlgorithm } from "./signing-algorithms.js";

/** What one trusted issuer's tokens must satisfy, after inheritance and `resource_uri`. */
export interface OidcIssuerSettings {
  /** Compared byte for byte with the token's `iss`. */
  readonly issuer: string;
  /**
   * The audience every token must carry in `aud` (`resource_uri` when set, else the issuer's
   * `audience`); null: `aud` is not checked (apart from `strictTenantAudience`).
   */
  readonly audience: string | null;
  /** Null: discovered through `<issuer>/.well-known/openid-configuration`. */
  readonly jwksUri: string | null;
  /** Asymmetric algorithms only; default all of {@link ASYMMETRIC_ALGORITHMS}. */
  readonly algorithms?: readonly string[] | undefined;
  /** `exp - iat` above this refuses the token; 0 disables the cap. */
  readonly maxTokenLifetimeSeconds: number;
  readonly claims: ClaimKeys;
  /**
   * Put before the subject to make the principal id (`principal_prefix`); absent or empty keeps the
   * bare subject (the spec's default).
   */
  readonly principalPrefix?: string | undefined;
  readonly requireTenant: boolean;
  /** The token's audience must be `tenantAudiences[tenant]`. */
  readonly strictTenantAudience: boolean;
  readonly tenantAudiences: Readonly<Record<string, string>>;
}

export interface OidcTokenVerifierOptions {
  readonly issuers: readonly OidcIssuerSettings[];
  /** Tolerance on `exp`, `nbf` and `iat`. */
  readonly clockSkewLeewaySeconds: number;
  /** The https rule for key-set URLs (spec 2 §5); applied to discovered `jwks_uri`s. */
  readonly acceptKeyUrl: (url: string) => boolean;
  readonly clock: Clock;
  readonly logger?: Logger | null | undefined;
  readonly keyCache?: Partial<KeyCacheSettings> | undefined;
}

/**
 * Far above any real token (large group lists reach a few kilobytes) and below what would make
 * decoding an attacker's input costly.
 */
const MAX_TOKEN_CHARS = 64 * 1024;
const MAX_KID_CHARS = 256;
/**
 * A `kid` is only compared with the `kid`s of fetched keys, never put in a URL or a path; still,
 * one holding control characters, backslashes, percent escapes or `..` is no key id any provider
 * issues, so it is refused before keys are looked at.
 */
const UNSAFE_KID = /[^\x21-\x7e]|\.\.|\\|%/;

interface TrustedIssuer {
  readonly settings: OidcIssuerSettings;
  readonly algorithms: readonly SigningAlgorithm[];
  readonly keys: IssuerKeys;
}

/** Thrown inside a verification to end it with a safe reason. */
class Refusal extends Error {}

/**
 * `TokenVerifier` over jose. Validation order: shape, `iss` against the trusted issuers (before any
 * key is fetched), header `alg` against the issuer's pinned algorithms, `kid` shape, signature with
 * the issuer's own key set, `exp` (required), `nbf`, `aud`, `iat` and the lifetime cap, claim
 * mapping, tenant rules. Keys of one issuer never verify another issuer's tokens.
 */
export class OidcTokenVerifier implements TokenVerifier {
  private readonly issuers = new Map<string, TrustedIssuer>();
  private readonly leeway: number;
  private readonly clock: Clock;
  private readonly logger: Logger | null;
  private readonly cache: KeyCacheSettings;
  private readonly lastKeyWarning = new Map<string, number>();

  constructor(options: OidcTokenVerifierOptions) {
    if (options.issuers.length === 0) throw new Error("OIDC: at least one issuer is required");
    if (!Number.isFinite(options.clockSkewLeewaySeconds) || options.clockSkewLeewaySeconds < 0) {
      throw new Error("OIDC: clock skew leeway must be a number >= 0");
    }
    this.leeway = options.clockSkewLeewaySeconds;
    this.clock = options.clock;
    this.logger = options.logger ?? null;
    this.cache = { ...DEFAULT_KEY_CACHE, ...options.keyCache };
    for (const settings of options.issuers) {
      if (this.issuers.has(settings.issuer)) {
        throw new Error(`OIDC issuer '${settings.issuer}' is listed twice`);
      }
      if (settings.jwksUri !== null && !options.acceptKeyUrl(settings.jwksUri)) {
        throw new Error(`OIDC issuer '${settings.issuer}': jwks_uri must be https (or loopback)`);
      }
      this.issuers.set(settings.issuer, {
        settings,
        algorithms: pinAlgorithms(settings.issuer, settings.algorithms ?? ASYMMETRIC_ALGORITHMS),
        keys: new IssuerKeys({
          issuer: settings.issuer,
          jwksUri: settings.jwksUri,
          cache: this.cache,
          acceptKeyUrl: options.acceptKeyUrl,
          clock: options.clock,
          logger: this.logger,
        }),
      });
    }
  }

  async verify(jwt: string): Promise<TokenVerdict> {
    let issuer: string | undefined;
    try {
      const trusted = this.selectIssuer(jwt);
      issuer = trusted.settings.issuer;
      return { ok: true, token: await this.verifyWith(trusted, jwt) };
    } catch (error) {
      const reason = this.reasonOf(error, issuer);
      this.logger?.debug({ issuer: issuer ?? null, reason }, "bearer token refused");
      return { ok: false, reason };
    }
  }

  /** Everything checked before a key is fetched: shape, `iss`, `alg`, `kid`. */
  private selectIssuer(jwt: string): TrustedIssuer {
    if (typeof jwt !== "string" || jwt.length === 0) throw new Refusal("malformed token");
    if (jwt.length > MAX_TOKEN_CHARS) throw new Refusal("token too large");
    // A signed JWT in compact form has three parts; five would be an encrypted one (JWE).
    if (jwt.split(".").length !== 3) throw new Refusal("malformed token");
    let header: ReturnType<typeof decodeProtectedHeader>;
    let payload: JWTPayload;
    try {
      header = decodeProtectedHeader(jwt);
      payload = decodeJwt(jwt);
    } catch {
      throw new Refusal("malformed token");
    }
    const iss: unknown = Object.hasOwn(payload, "iss") ? payload.iss : undefined;
    if (typeof iss !== "string" || iss.trim() === "") throw new Refusal("token has no issuer");
    const trusted = this.issuers.get(iss);
    if (!trusted) throw new Refusal("untrusted issuer");
    if (!(trusted.algorithms as readonly unknown[]).includes(header.alg)) {
      throw new Refusal("signing algorithm not accepted");
    }
    const kid: unknown = header.kid;
    if (
      kid !== undefined &&
      (typeof kid !== "string" || kid.length > MAX_KID_CHARS || UNSAFE_KID.test(kid))
    ) {
      throw new Refusal("malformed key id");
    }
    return trusted;
  }

  private async verifyWith(trusted: TrustedIssuer, jwt: string): Promise<VerifiedToken> {
    const { settings } = trusted;
    const resolver = await trusted.keys.get();
    const options: JWTVerifyOptions = {
      algorithms: [...trusted.algorithms],
      issuer: settings.issuer,
      ...(settings.audience !== null && { audience: settings.audience }),
      clockTolerance: this.leeway,
      currentDate: new Date(this.clock.now()),
      requiredClaims: ["exp"],
    };
    const payload = await this.checkSignature(jwt, this.guardKeyFetch(settings.issuer, resolver), options);
    const now = Math.floor(this.clock.now() / 1000);
    const exp = payload.exp as number;
    const iat = payload.iat;
    if (iat !== undefined && iat > now + this.leeway) throw new Refusal("token issued in the future");
    if (settings.maxTokenLifetimeSeconds > 0) {
      if (iat === undefined) throw new Refusal("token has no iat (required by the lifetime cap)");
      if (exp - iat > settings.maxTokenLifetimeSeconds) {
        throw new Refusal("token lifetime exceeds the maximum");
      }
    }
    const mapped = mapClaims(payload, settings.claims, settings.principalPrefix);
    if (!mapped.ok) throw new Refusal(mapped.reason);
    const { claims } = mapped;
    if (settings.requireTenant && claims.tenant === null) throw new Refusal("token has no tenant");
    if (settings.strictTenantAudience) this.checkTenantAudience(settings, claims.tenant, payload.aud);
    return {
      issuer: settings.issuer,
      subject: claims.subject,
      principal_id: claims.principalId,
      tenant_id: claims.tenant,
      groups: claims.groups,
      email: claims.email,
      session_id: claims.sessionId,
      expires_at: exp,
    };
  }

  /**
   * With `strict_tenant_audience`, the tenant's configured audience must be the token's audience
   * (one of them when `aud` is a list, as `aud` may also carry `resource_uri`). A token without a
   * tenant, or of a tenant with no configured audience, cannot meet the rule and is refused.
   */
  private checkTenantAudience(settings: OidcIssuerSettings, tenant: string | null, aud: unknown): void {
    if (tenant === null) throw new Refusal("token has no tenant");
    const expected = Object.hasOwn(settings.tenantAudiences, tenant)
      ? settings.tenantAudiences[tenant]
      : undefined;
    if (expected === undefined) throw new Refusal("tenant has no configured audience");
    const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
    if (!audiences.includes(expected)) throw new Refusal("audience does not match the tenant");
  }

  /**
   * Verifies signature and standard claims. When several keys match a header (no `kid`, a rotation
   * overlap), each is tried, as jose documents for key sets.
   */
  private async checkSignature(
    jwt: string,
    resolver: JWTVerifyGetKey,
    options: JWTVerifyOptions,
  ): Promise<JWTPayload> {
    try {
      return (await jwtVerify(jwt, resolver, options)).payload;
    } catch (error) {
      if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
      for await (const key of error) {
        try {
          return (await jwtVerify(jwt, key, options)).payload;
        } catch (inner) {
          if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
        }
      }
      throw new errors.JWSSignatureVerificationFailed();
    }
  }

  /**
   * Turns a failed key-set fetch (network error, non-200, bad JSON, timeout) into
   * `KeysUnavailable`, and warns about it at most once per cooldown per issuer.
   */
  private guardKeyFetch(issuer: string, resolver: JWTVerifyGetKey): JWTVerifyGetKey {
    return async (header, token) => {
      try {
        return await resolver(header, token);
      } catch (error) {
        if (
          error instanceof errors.JWKSNoMatchingKey ||
          error instanceof errors.JWKSMultipleMatchingKeys ||
          error instanceof errors.JOSENotSupported
        ) {
          throw error;
        }
        this.warnKeysUnavailable(issuer, error);
        throw new KeysUnavailable("signing keys unavailable");
      }
    };
  }

  private warnKeysUnavailable(issuer: string, error: unknown): void {
    const now = this.clock.monotonic();
    const last = this.lastKeyWarning.get(issuer);
    if (last !== undefined && now - last < Math.max(this.cache.cooldownMs, 1_000)) return;
    this.lastKeyWarning.set(issuer, now);
    const cause =
      error instanceof errors.JWKSTimeout
        ? "timeout"
        : error instanceof errors.JWKSInvalid
          ? "malformed key set"
          : error instanceof errors.JOSEError
            ? "unexpected response"
            : "request failed";
    this.logger?.warn({ issuer, cause }, "OIDC signing keys could not be fetched");
  }

  /** The safe, short reason of a refusal; never the token, a key or an upstream message. */
  private reasonOf(error: unknown, issuer: string | undefined): string {
    if (error instanceof Refusal) return error.message;
    if (error instanceof KeysUnavailable) return "signing keys unavailable";
    if (error instanceof errors.JOSEAlgNotAllowed) return "signing algorithm not accepted";
    if (error instanceof errors.JWKSNoMatchingKey) return "no signing key matches the token";
    if (error instanceof errors.JWSSignatureVerificationFailed) return "invalid signature";
    if (error instanceof errors.JWTExpired) return "token expired";
    if (error instanceof errors.JWTClaimValidationFailed) return claimReason(error);
    if (error instanceof errors.JOSENotSupported) return "unsupported token";
    if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return "malformed token";
    // Not expected from jose: keep the details in the log for operators, not in the answer.
    this.logger?.warn(
      { issuer: issuer ?? null, error: error instanceof Error ? error.name : typeof error },
      "unexpected error while verifying a bearer token",
    );
    return "token could not be verified";
  }
}

function claimReason(error: InstanceType<typeof errors.JWTClaimValidationFailed>): string {
  if (error.reason === "missing") {
    if (error.claim === "exp") return "token has no exp";
    if (error.claim === "aud") return "token has no audience";
    return `token has no ${error.claim}`;
  }
  if (error.reason === "invalid") return `${error.claim} claim is malformed`;
  switch (error.claim) {
    case "nbf":
      return "token not yet valid";
    case "aud":
      return "audience not accepted";
    case "iss":
      return "untrusted issuer";
    case "iat":
      return "token issued in the future";
    default:
      return `${error.claim} claim not accepted`;
  }
}
