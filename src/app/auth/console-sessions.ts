import type { Principal } from "../context.js";
import type { ApiKeyRepository } from "../ports/api-key-repository.js";
import type { Clock } from "../ports/clock.js";
import type { ConsoleSessionRecord, ConsoleSessionRepository } from "../ports/console-session-repository.js";
import type { Hasher } from "../ports/hasher.js";
import type { IdGenerator } from "../ports/id-generator.js";

/** Random bytes of a session's cookie token and of its CSRF token: 256 bits each. */
const TOKEN_BYTES = 32;

export interface ConsoleSessionsDeps {
  store: ConsoleSessionRepository;
  apiKeys: ApiKeyRepository;
  hasher: Hasher;
  ids: IdGenerator;
  clock: Clock;
  /** `ui.session_ttl_s`: a session lasts this long from sign-in, whatever is done with it. */
  ttlSeconds: number;
}

/** A session as its cookie opens it. */
export interface OpenedConsoleSession {
  readonly principal: Principal;
  readonly csrfToken: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/**
 * The operator console's sessions (docs/console.md): a credential the gateway already trusts (an
 * API key, an OIDC sign-in) is exchanged for a random token the browser keeps in an HttpOnly
 * cookie. Only the token's SHA-256 is stored, in the shared store, so every replica accepts it and
 * a sign-out anywhere ends it everywhere. A session of an API key ends when the key is revoked or
 * expires; every session ends `ttlSeconds` after it began.
 */
export class ConsoleSessions {
  constructor(private readonly deps: ConsoleSessionsDeps) {}

  /** Opens a session for `principal` (signed in with API key `keyId`, or by OIDC when null). */
  async open(principal: Principal, keyId: string | null): Promise<OpenedConsoleSession & { token: string }> {
    const { deps } = this;
    const now = deps.clock.now() / 1000;
    // Expired sessions go as new ones come: sign-ins are rare, and nothing else needs the sweep.
    await deps.store.prune(now);
    const token = deps.ids.hex(TOKEN_BYTES);
    const record: ConsoleSessionRecord = {
      token_hash: deps.hasher.sha256Hex(token),
      principal_id: principal.id,
      principal_type: principal.type === "jwt" ? "jwt" : "api_key",
      tenant_id: principal.tenant_id,
      roles: principal.roles,
      key_id: keyId,
      csrf_token: deps.ids.hex(TOKEN_BYTES),
      created_at: now,
      expires_at: now + deps.ttlSeconds,
    };
    await deps.store.create(record);
    return { token, principal, csrfToken: record.csrf_token, expiresAt: record.expires_at };
  }

  /**
   * The session `token` opens, or undefined: unknown, signed out, expired, or its API key revoked
   * or expired (the session then ends).
   */
  async resolve(token: string): Promise<OpenedConsoleSession | undefined> {
    const { deps } = this;
    const tokenHash = deps.hasher.sha256Hex(token);
    const session = await deps.store.find(tokenHash);
    const now = deps.clock.now() / 1000;
    if (!session || session.expires_at <= now) return undefined;
    if (session.key_id !== null) {
      const key = await deps.apiKeys.get(session.key_id);
      if (!key || key.revoked || (key.expires_at !== null && key.expires_at <= now)) {
        await deps.store.end(tokenHash);
        return undefined;
      }
    }
    return {
      principal: {
        id: session.principal_id,
        type: session.principal_type,
        tenant_id: session.tenant_id,
        roles: session.roles,
      },
      csrfToken: session.csrf_token,
      expiresAt: session.expires_at,
    };
  }

  /** The id of the API key `rawKey` (already authenticated), or null when the store has none. */
  async keyIdOf(rawKey: string): Promise<string | null> {
    const key = await this.deps.apiKeys.findByHash(this.deps.hasher.sha256Hex(rawKey));
    return key?.key_id ?? null;
  }

  /** Ends the session `token` opens; true when there was one. */
  end(token: string): Promise<boolean> {
    return this.deps.store.end(this.deps.hasher.sha256Hex(token));
  }
}
