import { z } from "zod";
import { isBuiltinRole } from "../../../domain/auth/roles.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields } from "./fields.js";
import { builtinRoleRefused, roleNotFound } from "./role-view.js";

/**
 * `DELETE /auth/roles/{role_name}`: removes a custom role and every assignment of it (204 at the
 * edge). Built-in 403 `CannotModifyBuiltinRoleError`, unknown 404 `RoleNotFoundError`.
 */
export const deleteRole = defineAuthOperation({
  name: "delete-role",
  kind: "command",
  summary: "Delete a custom role and its assignments.",
  input: z.strictObject({ ...actorFields, role_name: z.string().min(1) }),
  async run({ repositories, authorizer }, input) {
    if (isBuiltinRole(input.role_name)) throw builtinRoleRefused(input.role_name);
    const deleted = await repositories.roles.delete(input.role_name);
    if (!deleted) throw roleNotFound(input.role_name);
    // Deleted first: an assignment made meanwhile names a role that no longer grants anything.
    const assignments_removed = await repositories.roleAssignments.revokeRole(input.role_name);
    authorizer.invalidate();
    return { role_name: input.role_name, deleted: true, assignments_removed };
  },
});
