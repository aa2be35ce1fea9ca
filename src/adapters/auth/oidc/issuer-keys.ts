import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import type { Clock } from "../../../app/ports/clock.js";
import type { Logger } from "../../../app/ports/logger.js";
import { readBodyWithin } from "../../net/read-body.js";

/** How fetched key sets are kept. */
export interface KeyCacheSettings {
  /**
   * Least time between two fetches of a key set caused by a token whose `kid` is not in it. An
   * unknown `kid` after the cooldown refetches at once (key rotation); within it, the token is
   * refused without a fetch, so forged `kid`s cannot turn the gateway into a request flood against
   * the identity provider. Also the wait before a failed discovery is tried again.
   */
  readonly cooldownMs: number;
  /** Age after which a cached key set is fetched again before it is used. */
  readonly maxAgeMs: number;
  /** Deadline of one fetch (discovery document or key set). */
  readonly timeoutMs: number;
}

/**
 * jose's own defaults for the cooldown (30 s) and the cache age (10 min); 5 s for one fetch is long
 * for a key set of a few kilobytes yet short enough not to hold requests behind a stalled provider.
 */
export const DEFAULT_KEY_CACHE: KeyCacheSettings = {
  cooldownMs: 30_000,
  maxAgeMs: 600_000,
  timeoutMs: 5_000,
};

/** A discovery document is a few kilobytes; anything past this is not one. */
const MAX_DISCOVERY_BYTES = 256 * 1024;

/** The signing keys of one issuer could not be obtained. The message is safe to show and log. */
export class KeysUnavailable extends Error {}

export interface IssuerKeysOptions {
  readonly issuer: string;
  /** Configured `jwks_uri`; null: discovered from `<issuer>/.well-known/openid-configuration`. */
  readonly jwksUri: string | null;
  readonly cache: KeyCacheSettings;
  /** The https rule of spec 2 §5, applied to a discovered `jwks_uri` as to a configured one. */
  readonly acceptKeyUrl: (url: string) => boolean;
  readonly clock: Clock;
  readonly logger: Logger | null;
}

/** OpenID Connect Discovery 1.0 §4: the document lives under the issuer, trailing slash removed. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

/**
 * The key resolver of one issuer. Key-set URLs are fixed by configuration or by the issuer's own
 * discovery document, never by anything in a token: a token's `kid` only selects among the keys
 * already fetched (jose's key-set lookup is an equality test), so it never reaches a URL or a path.
 */
export class IssuerKeys {
  private resolver: JWTVerifyGetKey | null = null;
  private pending: Promise<JWTVerifyGetKey> | null = null;
  private failure: { readonly at: number; readonly error: KeysUnavailable } | null = null;

  constructor(private readonly options: IssuerKeysOptions) {
    if (options.jwksUri !== null) this.resolver = this.remoteSet(options.jwksUri);
  }

  /** The key resolver; the first call of a discovering issuer fetches the discovery document. */
  async get(): Promise<JWTVerifyGetKey> {
    if (this.resolver) return this.resolver;
    const failure = this.failure;
    if (failure && this.options.clock.monotonic() - failure.at < this.options.cache.cooldownMs) {
      throw failure.error;
    }
    this.pending ??= this.discover().then(
      (resolver) => {
        this.resolver = resolver;
        this.failure = null;
        this.pending = null;
        return resolver;
      },
      (error: unknown) => {
        const unavailable =
          error instanceof KeysUnavailable ? error : new KeysUnavailable("discovery request failed");
        this.failure = { at: this.options.clock.monotonic(), error: unavailable };
        this.pending = null;
        this.options.logger?.warn(
          { issuer: this.options.issuer, reason: unavailable.message },
          "OIDC discovery failed; tokens of this issuer are refused until it succeeds",
        );
        throw unavailable;
      },
    );
    return this.pending;
  }

  private remoteSet(url: string): JWTVerifyGetKey {
    return createRemoteJWKSet(new URL(url), {
      cooldownDuration: this.options.cache.cooldownMs,
      cacheMaxAge: this.options.cache.maxAgeMs,
      timeoutDuration: this.options.cache.timeoutMs,
    });
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const url = discoveryUrl(this.options.issuer);
    if (!this.options.acceptKeyUrl(url)) throw new KeysUnavailable("discovery URL is not https");
    const response = await fetch(url, {
      method: "GET",
      headers: { accept: "application/json" },
      // A redirect could leave https; the document must be served where the issuer says.
      redirect: "manual",
      signal: AbortSignal.timeout(this.options.cache.timeoutMs),
    }).catch(() => {
      throw new KeysUnavailable("discovery request failed");
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new KeysUnavailable(`discovery answered HTTP ${response.status}`);
    }
    const text = await readBodyWithin(response, MAX_DISCOVERY_BYTES);
    if (text === null) throw new KeysUnavailable("discovery document is too large");
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new KeysUnavailable("discovery document is not valid JSON");
    }
    if (typeof document !== "object" || document === null) {
      throw new KeysUnavailable("discovery document is not a JSON object");
    }
    const fields = document as Record<string, unknown>;
    // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one it was fetched for.
    if (fields.issuer !== this.options.issuer) {
      throw new KeysUnavailable("discovery document names another issuer");
    }
    const jwksUri = fields.jwks_uri;
    if (typeof jwksUri !== "string" || jwksUri === "") {
      throw new KeysUnavailable("discovery document has no jwks_uri");
    }
    if (!this.options.acceptKeyUrl(jwksUri)) {
      throw new KeysUnavailable("discovered jwks_uri is not https");
    }
    this.options.logger?.info({ issuer: this.options.issuer, jwks_uri: jwksUri }, "OIDC keys discovered");
    return this.remoteSet(jwksUri);
  }
}
