/**
 * A signed-in console session (docs/console.md): the cookie's token is never stored, only its
 * SHA-256. Times are epoch seconds, fractional.
 */
export interface ConsoleSessionRecord {
  /** SHA-256 of the cookie's token, 64 lowercase hex characters; unique. */
  readonly token_hash: string;
  readonly principal_id: string;
  /** How the principal signed in: `api_key` (then `key_id` is set) or `jwt` (OIDC). */
  readonly principal_type: "api_key" | "jwt";
  readonly tenant_id: string | null;
  /** The token's groups for an OIDC sign-in (its roles); empty for an API key. */
  readonly roles: readonly string[];
  /** The API key the session was opened with: revoking or expiring it ends the session. */
  readonly key_id: string | null;
  /** Sent back by the console in `X-CSRF-Token` on every write (compared, not secret-derived). */
  readonly csrf_token: string;
  readonly created_at: number;
  readonly expires_at: number;
}

/**
 * Console sessions, shared by every replica so that any one behind the load balancer accepts the
 * cookie another issued, and a sign-out on one ends the session on all.
 *
 * Guaranteed: `token_hash` is unique (`create` rejects a duplicate and stores nothing); `end`
 * removes the session for good; `find` answers an expired session as it is (the caller judges
 * expiry); `prune` removes exactly the sessions that expired before `olderThan`.
 */
export interface ConsoleSessionRepository {
  create(session: ConsoleSessionRecord): Promise<void>;
  find(tokenHash: string): Promise<ConsoleSessionRecord | undefined>;
  /** True when the session existed. */
  end(tokenHash: string): Promise<boolean>;
  /** Removes sessions with `expires_at < olderThan`; answers how many. */
  prune(olderThan: number): Promise<number>;
}
