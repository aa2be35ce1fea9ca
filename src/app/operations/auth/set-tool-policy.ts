import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, isoFromSeconds } from "./fields.js";
import { patternList, policyScope, TARGET_RULE } from "./tool-policy-fields.js";

/**
 * `POST /auth/policies/{scope}/{target_id}` with `allow_list` and `deny_list` (fnmatch globs, absent
 * is empty): replaces the whole policy. Any other key in the body is refused (422, naming it).
 * Answers the stored policy `{scope, target_id, allow_list, deny_list, updated_by, updated_at,
 * set: true}`.
 */
export const setToolPolicy = defineAuthOperation({
  name: "set-tool-policy",
  kind: "command",
  summary: "Set the tool access policy of a provider, group or member.",
  // Strict: a misspelt list (`allowlist`) must not store an empty one in its place. The whole policy
  // is replaced, so a dropped key would lift the restriction (spec 2 §2, rule 1 of the policy block).
  input: z.strictObject({
    ...actorFields,
    scope: z.string(),
    target_id: z
      .string({ error: TARGET_RULE })
      .min(1, { error: TARGET_RULE })
      .max(256, { error: TARGET_RULE }),
    allow_list: patternList(),
    deny_list: patternList(),
  }),
  async run({ repositories, clock, governance, bus }, input, ctx) {
    const scope = policyScope(input.scope);
    const policy = {
      scope,
      target_id: input.target_id,
      allow_list: input.allow_list,
      deny_list: input.deny_list,
      updated_at: clock.now() / 1000,
      updated_by: ctx.principal.id,
    };
    await repositories.toolAccessPolicies.set(policy);
    // The call path of this replica applies it from the next call (others within their refresh age).
    await governance?.stored.reload();
    bus.publish([
      { type: "ToolPolicyChanged", mcp_server_id: policy.target_id, change: "stored_policy_set" },
    ]);
    return {
      scope,
      target_id: policy.target_id,
      allow_list: policy.allow_list,
      deny_list: policy.deny_list,
      updated_by: policy.updated_by,
      updated_at: isoFromSeconds(policy.updated_at),
      set: true,
    };
  },
});
