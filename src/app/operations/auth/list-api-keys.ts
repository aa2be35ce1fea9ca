import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";
import { isoFromSeconds, principalId, queryBoolean } from "./fields.js";

/**
 * `GET /auth/keys?principal_id=&include_revoked=`: the keys of one principal, oldest first, never
 * their hashes. Without `principal_id` the list is empty (spec 1). `active` counts the listed keys
 * that are neither revoked nor expired.
 */
export const listApiKeys = defineAuthOperation({
  name: "list-api-keys",
  kind: "query",
  summary: "List the API keys of a principal.",
  input: z.strictObject({
    // `?principal_id=` (empty) is the same as no principal: an empty list.
    principal_id: z.preprocess((value) => (value === "" ? undefined : value), principalId().optional()),
    include_revoked: queryBoolean(true),
  }),
  async run({ repositories, clock }, input) {
    if (input.principal_id === undefined) return { principal_id: null, keys: [], total: 0, active: 0 };
    const records = await repositories.apiKeys.list(input.principal_id, input.include_revoked);
    const now = clock.now() / 1000;
    const keys = records.map((key) => ({
      key_id: key.key_id,
      name: key.name,
      created_at: isoFromSeconds(key.created_at),
      expires_at: isoFromSeconds(key.expires_at),
      last_used_at: isoFromSeconds(key.last_used_at),
      revoked: key.revoked,
    }));
    const active = records.filter((key) => !key.revoked && (key.expires_at === null || key.expires_at > now));
    return { principal_id: input.principal_id, keys, total: keys.length, active: active.length };
  },
});
