import { z } from "zod";
import { isBuiltinRole } from "../../../domain/auth/roles.js";
import { defineAuthOperation } from "./auth-operation.js";
import { builtinRoleViews, customRoleView, roleNotFound } from "./role-view.js";

/** `GET /auth/roles/{role_name}`: one role with its grants; unknown 404 `RoleNotFoundError`. */
export const getRole = defineAuthOperation({
  name: "get-role",
  kind: "query",
  summary: "Read one role with its permissions.",
  input: z.strictObject({ role_name: z.string().min(1) }),
  async run({ repositories }, input) {
    if (isBuiltinRole(input.role_name)) {
      const view = builtinRoleViews().find((role) => role.role_name === input.role_name);
      if (view) return view;
    }
    const role = await repositories.roles.get(input.role_name);
    if (!role) throw roleNotFound(input.role_name);
    return customRoleView(role);
  },
});
