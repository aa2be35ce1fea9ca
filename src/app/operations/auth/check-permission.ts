import { z } from "zod";
import { parsePermission } from "../../../domain/auth/permissions.js";
import { defineAuthOperation } from "./auth-operation.js";
import { actorFields, permission, principalId } from "./fields.js";

const PART = /^[A-Za-z0-9_*.-]+$/;
const PART_RULE = "must be letters, digits, '_', '-', '.' or '*'";
const FORMS_RULE =
  "give either permission, or action and resource_type (with an optional resource_id), not both";

/**
 * `POST /auth/check-permission`: whether a principal's roles grant a permission, given as
 * `permission` (`resource:action[:id]`) or as `action`, `resource_type` and an optional
 * `resource_id`. Answers `{principal_id, action, resource_type, resource_id, allowed,
 * granted_by_role}` from the same Authorizer requests go through (static and stored assignments,
 * custom roles, then the external policy engine when configured), for a global decision: a grant
 * held only at tenant scope does not count. The principal is judged by its assignments alone (roles
 * a JWT would declare are per request); the policy engine sees it as type `api_key`.
 */
export const checkPermission = defineAuthOperation({
  name: "check-permission",
  kind: "query",
  summary: "Check whether a principal holds a permission.",
  input: z
    .strictObject({
      ...actorFields,
      principal_id: principalId(),
      permission: permission().optional(),
      action: z.string({ error: PART_RULE }).regex(PART, { error: PART_RULE }).optional(),
      resource_type: z.string({ error: PART_RULE }).regex(PART, { error: PART_RULE }).optional(),
      resource_id: z
        .union([z.null(), z.string().min(1)], { error: "must be a non-empty string or null" })
        .optional(),
    })
    .superRefine((input, ctx) => {
      const separate =
        input.action !== undefined || input.resource_type !== undefined || input.resource_id != null;
      if (input.permission !== undefined) {
        if (separate) ctx.addIssue({ code: "custom", path: ["permission"], message: FORMS_RULE });
        return;
      }
      for (const field of ["action", "resource_type"] as const) {
        if (input[field] === undefined) {
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `is required without permission (${FORMS_RULE})`,
          });
        }
      }
    }),
  async run({ authorizer }, input) {
    const text =
      input.permission ??
      `${input.resource_type}:${input.action}${input.resource_id != null ? `:${input.resource_id}` : ""}`;
    const parsed = parsePermission(text);
    // The schema admitted only well-formed parts; answer as given, not in canonical form.
    const first = text.indexOf(":");
    const second = text.indexOf(":", first + 1);
    const resource_type = text.slice(0, first);
    const action = second === -1 ? text.slice(first + 1) : text.slice(first + 1, second);
    const resource_id = second === -1 ? null : text.slice(second + 1);
    const decision = parsed
      ? await authorizer.decide(
          { id: input.principal_id, type: "api_key", tenant_id: null, roles: [] },
          [text],
          { tenantAware: false, route: null },
        )
      : { allowed: false, granted_by_role: null };
    return {
      principal_id: input.principal_id,
      action,
      resource_type,
      resource_id,
      allowed: decision.allowed,
      granted_by_role: decision.allowed ? decision.granted_by_role : null,
    };
  },
});
