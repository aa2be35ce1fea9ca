import { covers, type ParsedPermission } from "./permissions.js";
import type { ParsedScope } from "./scope.js";

/** Whether a grant covers a required permission: {@link covers}, or a looser rule. */
export type GrantMatch = (grant: ParsedPermission, required: ParsedPermission) => boolean;

/** A role a principal holds within a scope, with the role's parsed grants. */
export interface HeldRole {
  readonly role: string;
  readonly scope: ParsedScope;
  readonly grants: readonly ParsedPermission[];
}

export interface Decision {
  readonly allowed: boolean;
  /** The role whose grants allowed it (the first that covers every required permission). */
  readonly granted_by_role: string | null;
  /** Null when allowed by global grants; the tenant a tenant-scoped grant confines the caller to. */
  readonly tenant: string | null;
  /**
   * Allowed only for some ids (`tool:invoke:math` against `tool:invoke`): the caller must be checked
   * again for each resource it acts on.
   */
  readonly perResource?: true;
}

const DENIED: Decision = Object.freeze({ allowed: false, granted_by_role: null, tenant: null });

/**
 * Whether roles allow every required permission. Global grants decide first. With `tenantAware`,
 * grants held at one tenant's scope may allow it too, confining the caller to that tenant; grants
 * of different scopes never add up.
 */
export function decide(
  roles: readonly HeldRole[],
  required: readonly ParsedPermission[],
  tenantAware: boolean,
  match: GrantMatch = covers,
): Decision {
  const global = roles.filter((role) => role.scope.kind === "global");
  const byGlobal = allowedBy(global, required, match);
  if (byGlobal !== null) return { allowed: true, granted_by_role: byGlobal, tenant: null };
  if (!tenantAware) return DENIED;
  const tenants = new Set<string>();
  for (const role of roles) if (role.scope.kind === "tenant") tenants.add(role.scope.tenant);
  for (const tenant of [...tenants].sort()) {
    const held = roles.filter((role) => role.scope.kind === "tenant" && role.scope.tenant === tenant);
    const byTenant = allowedBy(held, required, match);
    if (byTenant !== null) return { allowed: true, granted_by_role: byTenant, tenant };
  }
  return DENIED;
}

/** The first role covering every required permission alone, or else the first role that took part; null when not all are covered. */
function allowedBy(
  roles: readonly HeldRole[],
  required: readonly ParsedPermission[],
  match: GrantMatch,
): string | null {
  for (const role of roles) {
    if (required.every((permission) => role.grants.some((grant) => match(grant, permission))))
      return role.role;
  }
  let first: string | null = null;
  for (const permission of required) {
    const role = roles.find((held) => held.grants.some((grant) => match(grant, permission)));
    if (!role) return null;
    first ??= role.role;
  }
  return first ?? (required.length === 0 ? "" : null);
}
