import { BUILTIN_ROLES, isBuiltinRole } from "../../../domain/auth/roles.js";
import { GatewayError } from "../../../domain/errors.js";
import type { RoleRecord, RoleRepository } from "../../ports/role-repository.js";
import { isoFromSeconds } from "./fields.js";

/**
 * A role as the auth routes answer it (spec 1 does not show its fields; decided): `role_name`,
 * `description`, `permissions`, `permissions_count`, `builtin`, and for custom roles `created_at`,
 * `created_by`, `updated_at` (ISO 8601).
 */
export type RoleView =
  | {
      role_name: string;
      description: string;
      permissions: string[];
      permissions_count: number;
      builtin: true;
    }
  | {
      role_name: string;
      description: string;
      permissions: string[];
      permissions_count: number;
      builtin: false;
      created_at: string | null;
      created_by: string;
      updated_at: string | null;
    };

export function builtinRoleViews(): RoleView[] {
  return Object.entries(BUILTIN_ROLES).map(([role_name, role]) => ({
    role_name,
    description: role.description,
    permissions: [...role.permissions],
    permissions_count: role.permissions.length,
    builtin: true,
  }));
}

export function customRoleView(role: RoleRecord): RoleView {
  return {
    role_name: role.role_name,
    description: role.description,
    permissions: [...role.permissions],
    permissions_count: role.permissions.length,
    builtin: false,
    created_at: isoFromSeconds(role.created_at),
    created_by: role.created_by,
    updated_at: isoFromSeconds(role.updated_at),
  };
}

export function roleNotFound(name: string): GatewayError {
  return new GatewayError("RoleNotFoundError", `Role not found: ${name}`, { role_name: name });
}

export function builtinRoleRefused(name: string): GatewayError {
  return new GatewayError(
    "CannotModifyBuiltinRoleError",
    `Role '${name}' is built in and cannot be created, changed or deleted`,
    { role_name: name },
  );
}

/** Whether a role of that name exists, built in or custom. */
export async function roleExists(roles: RoleRepository, name: string): Promise<boolean> {
  return isBuiltinRole(name) || (await roles.get(name)) !== undefined;
}
