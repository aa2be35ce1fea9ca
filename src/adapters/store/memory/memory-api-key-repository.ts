import type {
  ApiKeyRecord,
  ApiKeyRepository,
  ApiKeyRevocation,
  ApiKeyUse,
  NewApiKey,
} from "../../../app/ports/api-key-repository.js";
import { byText } from "./memory-helpers.js";

export class MemoryApiKeyRepository implements ApiKeyRepository {
  private readonly keys = new Map<string, ApiKeyRecord>();
  /** key_hash -> key_id */
  private readonly byHash = new Map<string, string>();

  async create(key: NewApiKey): Promise<void> {
    if (this.keys.has(key.key_id)) throw new Error(`API key ${key.key_id} already exists`);
    if (this.byHash.has(key.key_hash)) throw new Error("an API key with this hash already exists");
    this.keys.set(key.key_id, {
      key_id: key.key_id,
      key_hash: key.key_hash,
      principal_id: key.principal_id,
      name: key.name,
      created_by: key.created_by,
      created_at: key.created_at,
      expires_at: key.expires_at,
      revoked: false,
      revoked_at: null,
      revoked_by: null,
      revoke_reason: null,
      last_used_at: null,
      tenant_id: key.tenant_id,
    });
    this.byHash.set(key.key_hash, key.key_id);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const keyId = this.byHash.get(keyHash);
    return keyId === undefined ? undefined : this.get(keyId);
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const key = this.keys.get(keyId);
    return key && { ...key };
  }

  async list(principalId: string, includeRevoked: boolean): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.principal_id === principalId && (includeRevoked || !k.revoked))
      .sort((a, b) => a.created_at - b.created_at || byText(a.key_id, b.key_id))
      .map((k) => ({ ...k }));
  }

  async revoke(keyId: string, revocation: ApiKeyRevocation): Promise<ApiKeyRecord | undefined> {
    const key = this.keys.get(keyId);
    if (!key) return undefined;
    if (!key.revoked) {
      this.keys.set(keyId, {
        ...key,
        revoked: true,
        revoked_at: revocation.at,
        revoked_by: revocation.revoked_by,
        revoke_reason: revocation.reason,
      });
    }
    return this.get(keyId);
  }

  async touchLastUsed(uses: readonly ApiKeyUse[]): Promise<void> {
    for (const use of uses) {
      const key = this.keys.get(use.key_id);
      if (key && (key.last_used_at === null || key.last_used_at < use.at)) {
        this.keys.set(use.key_id, { ...key, last_used_at: use.at });
      }
    }
  }
}
