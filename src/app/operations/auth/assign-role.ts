import { z } from "zod";
import { GLOBAL_SCOPE, scopeTenant } from "../../../domain/auth/scope.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, isoFromSeconds, principalId, roleName, roleScope } from "./fields.js";
import { roleExists, roleNotFound } from "./role-view.js";

/**
 * `POST /auth/roles/assign`: grants a role (built-in or custom) to a principal within a scope,
 * `global` (the default) or `tenant:<tenant_id>`. An unknown role is 404 `RoleNotFoundError`.
 * Idempotent: assigning again keeps the first assignment. Answer (decided): 200 `{principal_id,
 * role_name, scope, assigned: true, created, assigned_by, assigned_at}`, `created` false when the
 * assignment existed already.
 */
export const assignRole = defineAuthOperation({
  name: "assign-role",
  kind: "command",
  summary: "Assign a role to a principal, globally or within one tenant.",
  input: z.strictObject({
    ...actorFields,
    principal_id: principalId(),
    role_name: roleName(),
    scope: roleScope().default(GLOBAL_SCOPE),
  }),
  async run({ repositories, authorizer, clock, bus }, input, ctx) {
    if (!(await roleExists(repositories.roles, input.role_name))) throw roleNotFound(input.role_name);
    const { created, assignment } = await repositories.roleAssignments.assign({
      principal_id: input.principal_id,
      role_name: input.role_name,
      scope: input.scope,
      assigned_by: ctx.principal.id,
      assigned_at: clock.now() / 1000,
    });
    authorizer.invalidate();
    if (created) {
      bus.publish([
        {
          type: "RoleAssigned",
          principal_id: assignment.principal_id,
          role_name: assignment.role_name,
          scope: assignment.scope,
          assigned_by: assignment.assigned_by,
          tenant_id: scopeTenant(assignment.scope),
        },
      ]);
    }
    return {
      principal_id: assignment.principal_id,
      role_name: assignment.role_name,
      scope: assignment.scope,
      assigned: true,
      created,
      assigned_by: assignment.assigned_by,
      assigned_at: isoFromSeconds(assignment.assigned_at),
    };
  },
});
