import { API_KEY_RANDOM_BYTES, rawApiKeyFromHex } from "../../../domain/auth/api-key-format.js";
import type { ApiKeyRecord, ApiKeyRepository } from "../../ports/api-key-repository.js";
import type { Clock } from "../../ports/clock.js";
import type { Hasher } from "../../ports/hasher.js";
import type { IdGenerator } from "../../ports/id-generator.js";

export interface IssueApiKeyDeps {
  apiKeys: ApiKeyRepository;
  ids: IdGenerator;
  hasher: Hasher;
  clock: Clock;
}

export interface ApiKeyRequest {
  principal_id: string;
  name: string;
  /** Epoch seconds; null never expires. */
  expires_at: number | null;
  created_by: string;
  tenant_id?: string | null;
}

/** Shown to the caller with the raw key, the only time it is ever seen. */
export const RAW_KEY_WARNING =
  "Store this key now: it is shown only once and cannot be retrieved again (only its SHA-256 is kept).";

/**
 * Creates an API key: `mcp_` and 32 bytes from the id generator's CSPRNG in URL-safe base64. Only
 * the SHA-256 is stored; the raw key is returned once, to be shown to the caller and forgotten.
 * Callers never log it.
 */
export async function issueApiKey(
  deps: IssueApiKeyDeps,
  request: ApiKeyRequest,
): Promise<{ record: ApiKeyRecord; raw_key: string }> {
  const raw_key = rawApiKeyFromHex(deps.ids.hex(API_KEY_RANDOM_BYTES));
  const key = {
    key_id: deps.ids.uuid(),
    key_hash: deps.hasher.sha256Hex(raw_key),
    principal_id: request.principal_id,
    name: request.name,
    created_by: request.created_by,
    created_at: deps.clock.now() / 1000,
    expires_at: request.expires_at,
    tenant_id: request.tenant_id ?? null,
  };
  await deps.apiKeys.create(key);
  const record: ApiKeyRecord = {
    ...key,
    revoked: false,
    revoked_at: null,
    revoked_by: null,
    revoke_reason: null,
    last_used_at: null,
  };
  return { record, raw_key };
}
