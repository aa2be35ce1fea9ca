import { z } from "zod";
import { isBuiltinRole } from "../../../domain/auth/roles.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, description, fieldError, permissionList } from "./fields.js";
import { builtinRoleRefused, customRoleView, roleNotFound } from "./role-view.js";

/**
 * `PATCH /auth/roles/{role_name}`: `permissions` replaces the whole list, `description` the text;
 * at least one must be given. Answers the updated role (RoleView). Built-in 403, unknown 404.
 */
export const updateRole = defineAuthOperation({
  name: "update-role",
  kind: "command",
  summary: "Change a custom role's permissions or description.",
  input: z.strictObject({
    ...actorFields,
    role_name: z.string().min(1),
    description: description().optional(),
    permissions: permissionList().optional(),
  }),
  async run({ repositories, authorizer, clock }, input) {
    if (isBuiltinRole(input.role_name)) throw builtinRoleRefused(input.role_name);
    if (input.description === undefined && input.permissions === undefined) {
      throw fieldError("permissions", "give permissions, description or both");
    }
    const role = await repositories.roles.update(input.role_name, {
      ...(input.description !== undefined && { description: input.description }),
      ...(input.permissions !== undefined && { permissions: input.permissions }),
      updated_at: clock.now() / 1000,
    });
    if (!role) throw roleNotFound(input.role_name);
    authorizer.invalidate();
    return customRoleView(role);
  },
});
