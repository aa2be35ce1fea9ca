import { API_KEY_PREFIX } from "../../domain/auth/api-key-format.js";
import { andThen, type MaybePromise } from "../../domain/maybe-promise.js";
import { ANONYMOUS, type Principal } from "../context.js";
import type { ApiKeyRecord, ApiKeyRepository, ApiKeyUse } from "../ports/api-key-repository.js";
import type { Clock } from "../ports/clock.js";
import type { Hasher } from "../ports/hasher.js";
import type { Logger } from "../ports/logger.js";
import type { TokenVerifier } from "../ports/token-verifier.js";
import type { AccessEvents } from "./access-events.js";
import type { AuthMethod } from "./auth-method.js";
import type { ConsoleSessions } from "./console-sessions.js";
import { type LockoutSettings, LoginLockout } from "./login-lockout.js";

/** The credentials a request carried; each absent when not sent or empty. */
export interface Credentials {
  /** The API-key header (`auth.api_key.header_name`). */
  apiKey?: string | undefined;
  /** The token of `Authorization: Bearer <token>` (or a `?token=` where an edge accepts one). */
  bearer?: string | undefined;
  /**
   * The console's session cookie (docs/console.md), read by the REST and WebSocket edges only:
   * used when neither an API key nor a bearer token was sent.
   */
  session?: string | undefined;
  /** The client's address after trusted proxies: failures count against it. */
  clientAddress: string;
  /**
   * The direct peer when it is a trusted proxy (absent otherwise): failures count against it too,
   * and against the client address only as named through it (see `LoginLockout`).
   */
  proxyAddress?: string | undefined;
}

/** Spec 2 §5: the authentication failure messages. */
export const NO_CREDENTIALS = "No valid credentials provided";
export const BAD_KEY_FORMAT = "Invalid API key format: must start with 'mcp_'";
export const KEY_REVOKED = "API key has been revoked";
export const KEY_EXPIRED = "API key has expired";

export type Authentication =
  | {
      readonly ok: true;
      readonly principal: Principal;
      readonly authenticated: boolean;
      /** Set when a console session authenticated the request: its writes must carry this token. */
      readonly csrfToken?: string;
    }
  | {
      readonly ok: false;
      readonly message: string;
      readonly method: AuthMethod;
      /** Set while the client address is locked out: seconds until it may try again. */
      readonly retryAfterSeconds?: number;
      /** Why a token was refused, safe to show. */
      readonly reason?: string;
    };

export interface AuthenticatorDeps {
  apiKeys: ApiKeyRepository;
  hasher: Hasher;
  clock: Clock;
  logger: Logger;
  /** `auth.api_key.enabled`. */
  apiKeysEnabled: boolean;
  /** Null when OIDC is off: a bearer token is then refused. */
  tokens: TokenVerifier | null;
  allowAnonymous: boolean;
  /** `auth.rate_limit`, or null when disabled. */
  lockout: LockoutSettings | null;
  /** Told every outcome (failures always, successes sampled); absent: none published. */
  events?: AccessEvents;
  /** The console's sessions; absent, a session cookie authenticates no one. */
  sessions?: ConsoleSessions;
}

/** How often uses of API keys are written as `last_used_at`, batched. */
const TOUCH_INTERVAL_MS = 10_000;

/**
 * Establishes who is calling from the credentials a request carries: an API key in its header, a
 * JWT as `Authorization: Bearer`, or nothing (anonymous, when allowed). Never logs credentials.
 * Revocation and expiry are judged on every request; how fresh the key record is depends on the
 * repository given (see `CachedApiKeyRepository`: at most a second old for a revocation made
 * elsewhere, current for one made through this gateway).
 */
export class Authenticator {
  private readonly lockout: LoginLockout | null;
  private readonly uses = new Map<string, number>();
  private readonly flusher: NodeJS.Timeout;

  constructor(private readonly deps: AuthenticatorDeps) {
    this.lockout = deps.lockout ? new LoginLockout(deps.lockout, deps.clock) : null;
    this.flusher = setInterval(() => void this.flushUses(), TOUCH_INTERVAL_MS);
    this.flusher.unref();
  }

  /** The methods a client may use, for the failure body's `expected_methods`. */
  get expectedMethods(): AuthMethod[] {
    const methods: AuthMethod[] = [];
    if (this.deps.apiKeysEnabled) methods.push("api_key");
    if (this.deps.tokens) methods.push("jwt");
    return methods;
  }

  /**
   * The outcome for these credentials: at once when it needs no I/O (a lockout, no or malformed
   * credentials, an API key the repository holds in memory), else a promise of it.
   */
  authenticate(credentials: Credentials): MaybePromise<Authentication> {
    const method = methodOf(credentials);
    const events = this.deps.events;
    const locked = this.lockout?.lockedFor(credentials.clientAddress, credentials.proxyAddress) ?? 0;
    if (locked > 0) {
      events?.authenticationFailed(method, TOO_MANY_ATTEMPTS, credentials.clientAddress);
      return { ok: false, message: TOO_MANY_ATTEMPTS, method, retryAfterSeconds: locked };
    }
    return andThen(this.identify(credentials, method), (outcome) => {
      if (outcome.ok) {
        if (outcome.authenticated) events?.authenticationSucceeded(outcome.principal);
        return outcome;
      }
      if (method !== "none") this.lockout?.recordFailure(credentials.clientAddress, credentials.proxyAddress);
      events?.authenticationFailed(method, outcome.message, credentials.clientAddress);
      return outcome;
    });
  }

  /**
   * The outcome for credentials accepted once and judged again (an open stream): revocation and
   * expiry as for a request, but the login lockout is neither counted nor consulted and no event is
   * published: a revoked key's many streams must not lock its address out, nor a lockout of a
   * shared address end other callers' valid streams.
   */
  recheck(credentials: Credentials): MaybePromise<Authentication> {
    const method = methodOf(credentials);
    return this.identify(credentials, method);
  }

  /** Writes pending `last_used_at` updates; called on an interval and at shutdown. */
  async flushUses(): Promise<void> {
    if (this.uses.size === 0) return;
    const batch: ApiKeyUse[] = [...this.uses].map(([key_id, at]) => ({ key_id, at }));
    this.uses.clear();
    try {
      await this.deps.apiKeys.touchLastUsed(batch);
    } catch (error) {
      this.deps.logger.warn({ err: String(error), keys: batch.length }, "could not record API key uses");
    }
  }

  async close(): Promise<void> {
    clearInterval(this.flusher);
    await this.flushUses();
  }

  private identify(credentials: Credentials, method: AuthMethod): MaybePromise<Authentication> {
    if (credentials.apiKey && this.deps.apiKeysEnabled) return this.byApiKey(credentials.apiKey);
    if (credentials.bearer) return this.byToken(credentials.bearer);
    if (credentials.session && this.deps.sessions)
      return this.bySession(this.deps.sessions, credentials.session);
    if (method === "none" && this.deps.allowAnonymous)
      return { ok: true, principal: ANONYMOUS, authenticated: false };
    return { ok: false, message: NO_CREDENTIALS, method };
  }

  private byApiKey(raw: string): MaybePromise<Authentication> {
    if (!raw.startsWith(API_KEY_PREFIX)) return { ok: false, message: BAD_KEY_FORMAT, method: "api_key" };
    return andThen(this.deps.apiKeys.findByHash(this.deps.hasher.sha256Hex(raw)), (key) =>
      this.judgeKey(key),
    );
  }

  /** Revocation and expiry judged against this gateway's clock; a key in force counts as used. */
  private judgeKey(key: ApiKeyRecord | undefined): Authentication {
    if (!key) return { ok: false, message: NO_CREDENTIALS, method: "api_key" };
    if (key.revoked) return { ok: false, message: KEY_REVOKED, method: "api_key" };
    const now = this.deps.clock.now() / 1000;
    if (key.expires_at !== null && key.expires_at <= now) {
      return { ok: false, message: KEY_EXPIRED, method: "api_key" };
    }
    this.uses.set(key.key_id, now);
    return {
      ok: true,
      authenticated: true,
      principal: { id: key.principal_id, type: "api_key", tenant_id: key.tenant_id, roles: [] },
    };
  }

  private async bySession(sessions: ConsoleSessions, token: string): Promise<Authentication> {
    const session = await sessions.resolve(token);
    if (!session) return { ok: false, message: NO_CREDENTIALS, method: "session" };
    return { ok: true, authenticated: true, principal: session.principal, csrfToken: session.csrfToken };
  }

  private async byToken(token: string): Promise<Authentication> {
    // `Authorization: Bearer` carries JWTs only: an API key there is refused (spec 2 §5).
    if (token.startsWith(API_KEY_PREFIX)) {
      return { ok: false, message: NO_CREDENTIALS, method: "jwt", reason: KEY_AS_BEARER };
    }
    if (!this.deps.tokens) return { ok: false, message: NO_CREDENTIALS, method: "jwt" };
    const verdict = await this.deps.tokens.verify(token);
    if (!verdict.ok) return { ok: false, message: NO_CREDENTIALS, method: "jwt", reason: verdict.reason };
    const { principal_id, tenant_id, groups } = verdict.token;
    return {
      ok: true,
      authenticated: true,
      principal: { id: principal_id, type: "jwt", tenant_id, roles: groups },
    };
  }
}

/** How the credentials try to authenticate: a header credential wins over the console's cookie. */
function methodOf(credentials: Credentials): AuthMethod {
  if (credentials.apiKey) return "api_key";
  if (credentials.bearer) return "jwt";
  return credentials.session ? "session" : "none";
}

/** Why an API key sent as `Authorization: Bearer` is refused (the key itself is never repeated). */
export const KEY_AS_BEARER = "an API key goes in the API-key header, not in Authorization: Bearer";

export const TOO_MANY_ATTEMPTS = "Too many failed authentication attempts; try again later";
