import { z } from "zod";
import { isBuiltinRole } from "../../../domain/auth/roles.js";
import { GatewayError } from "../../../domain/errors.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, description, permissionList, roleName } from "./fields.js";
import { builtinRoleRefused, customRoleView } from "./role-view.js";

/**
 * `POST /auth/roles`: a custom role. 201 `{role_name, description, permissions_count, created: true,
 * permissions, builtin: false, created_by, created_at, updated_at}`. A built-in name is 403
 * `CannotModifyBuiltinRoleError`; a custom role of that name already existing is 409
 * `RoleAlreadyExistsError` (decided). Each permission must be `resource:action[:id]`.
 */
export const createRole = defineAuthOperation({
  name: "create-role",
  kind: "command",
  summary: "Create a custom role from permission strings.",
  input: z.strictObject({
    ...actorFields,
    role_name: roleName(),
    description: description().default(""),
    permissions: permissionList().default(() => []),
  }),
  async run({ repositories, authorizer, clock }, input, ctx) {
    if (isBuiltinRole(input.role_name)) throw builtinRoleRefused(input.role_name);
    const created_at = clock.now() / 1000;
    const created = await repositories.roles.create({
      role_name: input.role_name,
      description: input.description,
      permissions: input.permissions,
      created_at,
      created_by: ctx.principal.id,
    });
    if (!created) {
      throw new GatewayError("RoleAlreadyExistsError", `Role already exists: ${input.role_name}`, {
        role_name: input.role_name,
      });
    }
    authorizer.invalidate();
    const view = customRoleView({
      role_name: input.role_name,
      description: input.description,
      permissions: input.permissions,
      created_at,
      created_by: ctx.principal.id,
      updated_at: created_at,
    });
    return { ...view, created: true };
  },
});
