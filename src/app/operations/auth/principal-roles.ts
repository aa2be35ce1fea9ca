import { z } from "zod";
import { GLOBAL_SCOPE } from "../../../domain/auth/scope.js";
import { defineAuthOperation } from "./auth-operation.js";
import { isoFromSeconds, principalId } from "./fields.js";

const SCOPE_FILTER = /^tenant:\S+$/;
const SCOPE_FILTER_RULE = "must be *, global or tenant:<tenant_id>";

/**
 * `GET /auth/principals/roles?principal_id=&scope=`: the roles assigned to a principal through REST,
 * `scope` `*` (all, the default), `global` or `tenant:<tenant_id>`. Answer (decided):
 * `{principal_id, scope, roles: [{role_name, scope, assigned_by, assigned_at, source}], total}`:
 * static `role_assignments` of the configuration first (`source: "config"`, `assigned_by:
 * "configuration"`, `assigned_at: null`), then those made through REST (`source: "api"`). Roles a
 * JWT declares through its groups are not listed.
 */
export const principalRoles = defineAuthOperation({
  name: "principal-roles",
  kind: "query",
  summary: "List the roles assigned to a principal.",
  input: z.strictObject({
    principal_id: principalId(),
    scope: z
      .string({ error: SCOPE_FILTER_RULE })
      .refine((scope) => scope === "*" || scope === GLOBAL_SCOPE || SCOPE_FILTER.test(scope), {
        error: SCOPE_FILTER_RULE,
      })
      .default("*"),
  }),
  async run({ repositories, authorizer }, input) {
    const stored = await repositories.roleAssignments.listByPrincipal(input.principal_id, input.scope);
    const declared = authorizer.staticAssignments
      .filter(
        ({ principal, scope }) =>
          principal === input.principal_id && (input.scope === "*" || scope === input.scope),
      )
      .map(({ role, scope }) => ({
        role_name: role,
        scope,
        assigned_by: "configuration",
        assigned_at: null,
        source: "config",
      }));
    const roles = [
      ...declared,
      ...stored.map((assignment) => ({
        role_name: assignment.role_name,
        scope: assignment.scope,
        assigned_by: assignment.assigned_by,
        assigned_at: isoFromSeconds(assignment.assigned_at),
        source: "api",
      })),
    ];
    return { principal_id: input.principal_id, scope: input.scope, roles, total: roles.length };
  },
});
