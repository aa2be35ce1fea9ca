import { z } from "zod";
import { defineAuthOperation } from "./auth-operation.js";
import { queryBoolean } from "./fields.js";
import { builtinRoleViews, customRoleView } from "./role-view.js";

/**
 * `GET /auth/roles/all?include_builtin=`: every role, built-in ones first (in the specification's
 * order), then custom ones by name. Answer (decided): `{roles: [RoleView], total}`.
 */
export const listAllRoles = defineAuthOperation({
  name: "list-all-roles",
  kind: "query",
  summary: "List built-in and custom roles with their permissions.",
  input: z.strictObject({ include_builtin: queryBoolean(true) }),
  async run({ repositories }, input) {
    const custom = (await repositories.roles.list()).map(customRoleView);
    const roles = [...(input.include_builtin ? builtinRoleViews() : []), ...custom];
    return { roles, total: roles.length };
  },
});

/** `GET /auth/roles`: the built-in roles only. Answer (decided): `{roles: [RoleView], total}`. */
export const listBuiltinRoles = defineAuthOperation({
  name: "list-builtin-roles",
  kind: "query",
  summary: "List the built-in roles with their permissions.",
  input: z.strictObject({}),
  async run() {
    const roles = builtinRoleViews();
    return { roles, total: roles.length };
  },
});
