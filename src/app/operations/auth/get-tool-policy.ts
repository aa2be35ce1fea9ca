import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";
import { policyScope } from "./tool-policy-fields.js";

/**
 * `GET /auth/policies/{scope}/{target_id}`: the tool access policy set through REST. Answers
 * `{found, scope, target_id, allow_list, deny_list}`; `found` false with empty lists when nothing is
 * set. `scope` other than provider, group or member is 400 `ValidationError`.
 */
export const getToolPolicy = defineAuthOperation({
  name: "get-tool-policy",
  kind: "query",
  summary: "Read the tool access policy of a provider, group or member.",
  input: z.strictObject({ scope: z.string(), target_id: z.string().min(1) }),
  async run({ repositories }, input) {
    const scope = policyScope(input.scope);
    const policy = await repositories.toolAccessPolicies.get(scope, input.target_id);
    return {
      found: policy !== undefined,
      scope,
      target_id: input.target_id,
      allow_list: [...(policy?.allow_list ?? [])],
      deny_list: [...(policy?.deny_list ?? [])],
    };
  },
});
