import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, isoFromSeconds } from "./fields.js";

const REASON_MAX = 1024;

/**
 * `DELETE /auth/keys/{key_id}` with an optional `reason`. Decided (spec 1 shows no body): 200
 * `{key_id, principal_id, revoked: true, revoked_at, revoked_by, reason, already_revoked}`; a key
 * revoked earlier keeps its first revocation, which is answered with `already_revoked: true`. An
 * unknown key is 404 `ApiKeyNotFoundError`. The key stops authenticating at once on this gateway
 * (the revocation empties its key cache), within a second on the others (`CachedApiKeyRepository`).
 */
export const revokeApiKey = defineAuthOperation({
  name: "revoke-api-key",
  kind: "command",
  summary: "Revoke an API key, recording who revoked it and why.",
  input: z.strictObject({
    ...actorFields,
    key_id: z.string().min(1),
    reason: z
      .string({ error: "must be a string" })
      .max(REASON_MAX, { error: `must be at most ${REASON_MAX} characters` })
      .default(""),
  }),
  async run({ repositories, clock, bus }, input, ctx) {
    const before = await repositories.apiKeys.get(input.key_id);
    if (!before) throw new GatewayError("ApiKeyNotFoundError", `API key not found: ${input.key_id}`);
    const after = await repositories.apiKeys.revoke(input.key_id, {
      revoked_by: ctx.principal.id,
      reason: input.reason,
      at: clock.now() / 1000,
    });
    if (!after) throw new GatewayError("ApiKeyNotFoundError", `API key not found: ${input.key_id}`);
    // A key revoked earlier keeps its first revocation: nothing changed, nothing to publish.
    if (!before.revoked) {
      bus.publish([
        {
          type: "ApiKeyRevoked",
          key_id: after.key_id,
          principal_id: after.principal_id,
          revoked_by: after.revoked_by ?? ctx.principal.id,
          reason: after.revoke_reason ?? "",
          tenant_id: after.tenant_id,
        },
      ]);
    }
    return {
      key_id: after.key_id,
      principal_id: after.principal_id,
      revoked: true,
      revoked_at: isoFromSeconds(after.revoked_at),
      revoked_by: after.revoked_by,
      reason: after.revoke_reason ?? "",
      already_revoked: before.revoked,
    };
  },
});
