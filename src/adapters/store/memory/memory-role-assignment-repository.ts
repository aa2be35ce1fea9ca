import type {
  AssignResult,
  RoleAssignment,
  RoleAssignmentRepository,
  RoleScope,
} from "../../../app/ports/role-assignment-repository.js";
import { byText } from "./memory-helpers.js";

const keyOf = (principalId: string, roleName: string, scope: RoleScope): string =>
  JSON.stringify([principalId, roleName, scope]);

const ordered = (a: RoleAssignment, b: RoleAssignment): number =>
  byText(a.principal_id, b.principal_id) || byText(a.role_name, b.role_name) || byText(a.scope, b.scope);

export class MemoryRoleAssignmentRepository implements RoleAssignmentRepository {
  private readonly assignments = new Map<string, RoleAssignment>();

  async assign(assignment: RoleAssignment): Promise<AssignResult> {
    const key = keyOf(assignment.principal_id, assignment.role_name, assignment.scope);
    const existing = this.assignments.get(key);
    if (existing) return { created: false, assignment: { ...existing } };
    const stored: RoleAssignment = {
      principal_id: assignment.principal_id,
      role_name: assignment.role_name,
      scope: assignment.scope,
      assigned_by: assignment.assigned_by,
      assigned_at: assignment.assigned_at,
    };
    this.assignments.set(key, stored);
    return { created: true, assignment: { ...stored } };
  }

  async revoke(principalId: string, roleName: string, scope: RoleScope): Promise<boolean> {
    return this.assignments.delete(keyOf(principalId, roleName, scope));
  }

  async listByPrincipal(principalId: string, scope?: RoleScope): Promise<RoleAssignment[]> {
    const anyScope = scope === undefined || scope === "*";
    return [...this.assignments.values()]
      .filter((a) => a.principal_id === principalId && (anyScope || a.scope === scope))
      .sort(ordered)
      .map((a) => ({ ...a }));
  }

  async listPrincipals(): Promise<string[]> {
    return [...new Set([...this.assignments.values()].map((a) => a.principal_id))].sort(byText);
  }

  async revokeRole(roleName: string): Promise<number> {
    let removed = 0;
    for (const [key, assignment] of this.assignments) {
      if (assignment.role_name !== roleName) continue;
      this.assignments.delete(key);
      removed++;
    }
    return removed;
  }
}
