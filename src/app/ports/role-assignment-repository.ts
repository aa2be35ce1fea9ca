/** `global`, or `tenant:<tenant_id>`. */
export type RoleScope = string;

/** A role granted to a principal within a scope. Times are epoch seconds, fractional. */
export interface RoleAssignment {
  readonly principal_id: string;
  readonly role_name: string;
  readonly scope: RoleScope;
  readonly assigned_by: string;
  readonly assigned_at: number;
}

export type AssignResult = { readonly created: boolean; readonly assignment: RoleAssignment };

/**
 * Role assignments made through REST (static `role_assignments` of the configuration are not
 * stored here), shared by every replica.
 *
 * Guaranteed: at most one assignment per (principal, role, scope); `assign` is idempotent and keeps
 * the first assignment's `assigned_by` and `assigned_at`; listings are ordered by principal, role,
 * then scope. Not guaranteed: that the role exists or that the scope is well formed (the caller
 * checks both).
 */
export interface RoleAssignmentRepository {
  assign(assignment: RoleAssignment): Promise<AssignResult>;
  /** True when an assignment was removed. */
  revoke(principalId: string, roleName: string, scope: RoleScope): Promise<boolean>;
  /** The assignments of one principal; `scope` absent or `*` means every scope. */
  listByPrincipal(principalId: string, scope?: RoleScope): Promise<RoleAssignment[]>;
  /** Every principal holding at least one assignment, ordered. */
  listPrincipals(): Promise<string[]>;
  /** Removes every assignment of a role (when the role is deleted); answers how many. */
  revokeRole(roleName: string): Promise<number>;
}
