import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";

/**
 * `GET /auth/principals`: every principal holding a role, statically (`role_assignments`) or
 * through REST, ordered, each with its assignments. Answer (decided): `{principals: [{principal_id,
 * roles: [{role_name, scope}]}], total}`. Principals that only own API keys are not listed.
 */
export const listPrincipals = defineAuthOperation({
  name: "list-principals",
  kind: "query",
  summary: "List principals holding roles assigned through REST.",
  input: z.strictObject({}),
  async run({ repositories, authorizer }) {
    const statics = authorizer.staticAssignments;
    const stored = await repositories.roleAssignments.listPrincipals();
    const ids = [...new Set([...statics.map(({ principal }) => principal), ...stored])].sort();
    const principals = await Promise.all(
      ids.map(async (principal_id) => ({
        principal_id,
        roles: [
          ...statics
            .filter(({ principal }) => principal === principal_id)
            .map(({ role, scope }) => ({ role_name: role, scope })),
          ...(await repositories.roleAssignments.listByPrincipal(principal_id)).map(
            ({ role_name, scope }) => ({
              role_name,
              scope,
            }),
          ),
        ],
      })),
    );
    return { principals, total: principals.length };
  },
});
