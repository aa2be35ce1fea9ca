import { randomUUID } from "node:crypto";
import type { Gateway } from "../../src/composition/create-gateway.js";

/**
 * Creates an API key for `principal` straight in the gateway's store (as `/auth/keys` would) and
 * answers the raw key.
 */
export async function createApiKey(
  gw: { gateway: Pick<Gateway, "services"> },
  principal: string,
  options: { tenant?: string | null; expiresAt?: number | null } = {},
): Promise<string> {
  const { repositories, hasher } = gw.gateway.services;
  const raw = `mcp_${principal}_${randomUUID().replaceAll("-", "")}`;
  await repositories.apiKeys.create({
    key_id: `key-${principal}-${randomUUID()}`,
    key_hash: hasher.sha256Hex(raw),
    principal_id: principal,
    name: principal,
    created_by: "test",
    created_at: Date.now() / 1000,
    expires_at: options.expiresAt ?? null,
    tenant_id: options.tenant ?? null,
  });
  return raw;
}
