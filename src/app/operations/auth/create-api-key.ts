import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, fieldError, isoFromSeconds, parseIsoTime, principalId } from "./fields.js";
import { issueApiKey, RAW_KEY_WARNING } from "./issue-api-key.js";

const NAME_RULE = "must be a non-empty string of at most 256 characters";
const EXPIRES_RULE = "must be an ISO 8601 date or date-time (e.g. 2026-12-31T23:59:59Z) or null";

/**
 * `POST /auth/keys`. Spec 1: `principal_id` and `name` are required, and a body missing either
 * answers 500 (the handler subscripts its body); both are therefore optional in the schema and
 * checked in `run`. Present but malformed values are a ValidationError naming the field.
 */
export const createApiKey = defineAuthOperation({
  name: "create-api-key",
  kind: "command",
  summary: "Create an API key for a principal; the raw key is answered once and never stored.",
  input: z.strictObject({
    ...actorFields,
    principal_id: principalId().optional(),
    name: z
      .string({ error: NAME_RULE })
      .trim()
      .min(1, { error: NAME_RULE })
      .max(256, { error: NAME_RULE })
      .optional(),
    expires_at: z
      .union([z.null(), z.string()], { error: EXPIRES_RULE })
      .optional()
      .refine((value) => value === undefined || value === null || parseIsoTime(value) !== null, {
        error: EXPIRES_RULE,
      }),
  }),
  async run({ repositories, ids, hasher, clock, bus }, input, ctx) {
    const missing =
      input.principal_id === undefined ? "principal_id" : input.name === undefined ? "name" : null;
    if (missing !== null) {
      throw new GatewayError("InternalServerError", `POST /auth/keys: body has no '${missing}'`);
    }
    const expiresMs = typeof input.expires_at === "string" ? parseIsoTime(input.expires_at) : null;
    if (expiresMs !== null && expiresMs <= clock.now()) {
      throw fieldError("expires_at", "must be in the future");
    }
    const { record, raw_key } = await issueApiKey(
      { apiKeys: repositories.apiKeys, ids, hasher, clock },
      {
        principal_id: input.principal_id as string,
        name: input.name as string,
        expires_at: expiresMs === null ? null : expiresMs / 1000,
        created_by: ctx.principal.id,
      },
    );
    bus.publish([
      {
        type: "ApiKeyCreated",
        key_id: record.key_id,
        principal_id: record.principal_id,
        name: record.name,
        created_by: record.created_by,
        expires_at: record.expires_at,
        tenant_id: record.tenant_id,
      },
    ]);
    return {
      key_id: record.key_id,
      raw_key,
      principal_id: record.principal_id,
      name: record.name,
      created_by: record.created_by,
      expires_at: isoFromSeconds(record.expires_at),
      warning: RAW_KEY_WARNING,
    };
  },
});
