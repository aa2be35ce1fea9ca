import { z } from "zod";
import { GLOBAL_SCOPE, scopeTenant } from "../../../domain/auth/scope.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, principalId, roleName, roleScope } from "./fields.js";
import { roleExists, roleNotFound } from "./role-view.js";

/**
 * `DELETE /auth/roles/revoke` (body `principal_id`, `role_name`, `scope`, default `global`): removes
 * one assignment made through REST; static `role_assignments` of the configuration stay. An unknown
 * role is 404 `RoleNotFoundError`. Answer (decided): 200 `{principal_id, role_name, scope, revoked,
 * revoked_by}`, `revoked` false when there was no such assignment.
 */
export const revokeRole = defineAuthOperation({
  name: "revoke-role",
  kind: "command",
  summary: "Revoke a role assignment of a principal.",
  input: z.strictObject({
    ...actorFields,
    principal_id: principalId(),
    role_name: roleName(),
    scope: roleScope().default(GLOBAL_SCOPE),
  }),
  async run({ repositories, authorizer, bus }, input, ctx) {
    if (!(await roleExists(repositories.roles, input.role_name))) throw roleNotFound(input.role_name);
    const revoked = await repositories.roleAssignments.revoke(
      input.principal_id,
      input.role_name,
      input.scope,
    );
    authorizer.invalidate();
    if (revoked) {
      bus.publish([
        {
          type: "RoleRevoked",
          principal_id: input.principal_id,
          role_name: input.role_name,
          scope: input.scope,
          revoked_by: ctx.principal.id,
          tenant_id: scopeTenant(input.scope),
        },
      ]);
    }
    return {
      principal_id: input.principal_id,
      role_name: input.role_name,
      scope: input.scope,
      revoked,
      revoked_by: ctx.principal.id,
    };
  },
});
