import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields } from "./fields.js";
import { policyScope } from "./tool-policy-fields.js";

/**
 * `DELETE /auth/policies/{scope}/{target_id}`: removes the policy (204 at the edge, whether or not
 * one was set: deleting is idempotent).
 */
export const deleteToolPolicy = defineAuthOperation({
  name: "delete-tool-policy",
  kind: "command",
  summary: "Delete the tool access policy of a provider, group or member.",
  input: z.strictObject({ ...actorFields, scope: z.string(), target_id: z.string().min(1) }),
  async run({ repositories, governance, bus }, input) {
    const scope = policyScope(input.scope);
    const deleted = await repositories.toolAccessPolicies.delete(scope, input.target_id);
    await governance?.stored.reload();
    if (deleted)
      bus.publish([
        { type: "ToolPolicyChanged", mcp_server_id: input.target_id, change: "stored_policy_deleted" },
      ]);
    return { scope, target_id: input.target_id, deleted };
  },
});
