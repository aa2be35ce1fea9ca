import type { MaybePromise } from "../../domain/maybe-promise.js";

/** An API key as stored: never the raw key, only its SHA-256. Times are epoch seconds, fractional. */
export interface ApiKeyRecord {
  readonly key_id: string;
  /** SHA-256 of the raw key, 64 lowercase hex characters; unique. */
  readonly key_hash: string;
  readonly principal_id: string;
  readonly name: string;
  readonly created_by: string;
  readonly created_at: number;
  /** Null: never expires. */
  readonly expires_at: number | null;
  readonly revoked: boolean;
  readonly revoked_at: number | null;
  readonly revoked_by: string | null;
  readonly revoke_reason: string | null;
  readonly last_used_at: number | null;
  readonly tenant_id: string | null;
}

export type NewApiKey = Omit<
  ApiKeyRecord,
  "revoked" | "revoked_at" | "revoked_by" | "revoke_reason" | "last_used_at"
>;

export interface ApiKeyRevocation {
  readonly revoked_by: string;
  readonly reason: string;
  readonly at: number;
}

/** One use of a key: `at` is when it was used. */
export interface ApiKeyUse {
  readonly key_id: string;
  readonly at: number;
}

/**
 * API keys, shared by every replica.
 *
 * Guaranteed: `key_id` and `key_hash` are unique (`create` rejects a duplicate and stores nothing);
 * a revoked key stays revoked, and revoking it again keeps the first revocation's fields;
 * `last_used_at` only moves forward. Not guaranteed: that `findByHash` checks expiry or revocation
 * (the caller judges both); that `last_used_at` is exact (callers may batch and drop uses).
 */
export interface ApiKeyRepository {
  create(key: NewApiKey): Promise<void>;
  /** At once, without a promise, when a cache in front of the store holds the key. */
  findByHash(keyHash: string): MaybePromise<ApiKeyRecord | undefined>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** The keys of one principal, oldest first; revoked ones only with `includeRevoked`. */
  list(principalId: string, includeRevoked: boolean): Promise<ApiKeyRecord[]>;
  /** The key after the call, or undefined when it does not exist. */
  revoke(keyId: string, revocation: ApiKeyRevocation): Promise<ApiKeyRecord | undefined>;
  /** Records uses in one cheap write (unknown keys are ignored); meant to be batched by the caller. */
  touchLastUsed(uses: readonly ApiKeyUse[]): Promise<void>;
}
