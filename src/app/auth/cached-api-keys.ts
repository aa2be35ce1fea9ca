import type { MaybePromise } from "../../domain/maybe-promise.js";
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  ApiKeyRevocation,
  ApiKeyUse,
  NewApiKey,
} from "../ports/api-key-repository.js";
import type { Clock } from "../ports/clock.js";

export interface ApiKeyCacheSettings {
  /** How long a looked-up key is answered from memory, in milliseconds (monotonic clock). */
  ttlMs: number;
  /** The most keys kept; the least recently stored goes first. */
  maxEntries: number;
}

/** One second, 10,000 keys: a busy key costs one store read per second instead of one per request. */
export const DEFAULT_API_KEY_CACHE: ApiKeyCacheSettings = { ttlMs: 1000, maxEntries: 10_000 };

interface Entry {
  readonly record: ApiKeyRecord;
  /** Monotonic milliseconds after which the store is read again. */
  readonly until: number;
}

/**
 * The API-key store with `findByHash` answered from memory for a short time: authentication reads
 * a key on every request, and a store read (a query compiled and prepared each time) was the
 * largest single cost of a relayed tool call.
 *
 * Guaranteed: a key revoked through this object is refused from the next lookup on (its entry goes
 * before `revoke` returns, and a lookup that raced the revocation does not store what it read); a
 * key revoked elsewhere (another replica, the CLI, the store directly) is refused at the latest
 * `ttlMs` after the revocation reached the store. Unknown keys are never cached, so a key created
 * anywhere works on its first request. The record is returned as stored: the caller still judges
 * revocation and expiry (`expires_at`) against its own clock on every request.
 */
export class CachedApiKeyRepository implements ApiKeyRepository {
  private readonly byHash = new Map<string, Entry>();
  /** Bumped by every revocation: a lookup that started before it must not store its answer. */
  private generation = 0;

  constructor(
    private readonly store: ApiKeyRepository,
    private readonly clock: Clock,
    private readonly settings: ApiKeyCacheSettings = DEFAULT_API_KEY_CACHE,
  ) {}

  /** Keys currently held, for tests and metrics. */
  get size(): number {
    return this.byHash.size;
  }

  /** A key held and fresh is answered at once; any other lookup reads the store. */
  findByHash(keyHash: string): MaybePromise<ApiKeyRecord | undefined> {
    const now = this.clock.monotonic();
    const cached = this.byHash.get(keyHash);
    if (cached && cached.until > now) return cached.record;
    if (cached) this.byHash.delete(keyHash);
    return this.read(keyHash, now);
  }

  async revoke(keyId: string, revocation: ApiKeyRevocation): Promise<ApiKeyRecord | undefined> {
    try {
      return await this.store.revoke(keyId, revocation);
    } finally {
      // Also when the write failed: it may have reached the store all the same.
      this.forget(keyId);
    }
  }

  create(key: NewApiKey): Promise<void> {
    return this.store.create(key);
  }

  get(keyId: string): Promise<ApiKeyRecord | undefined> {
    return this.store.get(keyId);
  }

  list(principalId: string, includeRevoked: boolean): Promise<ApiKeyRecord[]> {
    return this.store.list(principalId, includeRevoked);
  }

  touchLastUsed(uses: readonly ApiKeyUse[]): Promise<void> {
    return this.store.touchLastUsed(uses);
  }

  /** Drops the entry of key `keyId`, and stops lookups under way from storing theirs. */
  forget(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.byHash) {
      if (entry.record.key_id === keyId) this.byHash.delete(hash);
    }
  }

  private async read(keyHash: string, now: number): Promise<ApiKeyRecord | undefined> {
    const generation = this.generation;
    const record = await this.store.findByHash(keyHash);
    if (record && generation === this.generation) this.remember(keyHash, record, now);
    return record;
  }

  private remember(keyHash: string, record: ApiKeyRecord, now: number): void {
    this.byHash.delete(keyHash);
    if (this.byHash.size >= this.settings.maxEntries) {
      const oldest = this.byHash.keys().next();
      if (!oldest.done) this.byHash.delete(oldest.value);
    }
    this.byHash.set(keyHash, { record, until: now + this.settings.ttlMs });
  }
}
