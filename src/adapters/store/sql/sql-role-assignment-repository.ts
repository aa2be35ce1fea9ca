import type { Kysely } from "kysely";
import type {
  AssignResult,
  RoleAssignment,
  RoleAssignmentRepository,
  RoleScope,
} from "../../../app/ports/role-assignment-repository.js";
import type { StoreTables } from "./store-tables.js";

/** `assign` reads back after a lost insert race; a revoke in between can make it retry, rarely twice. */
const ASSIGN_ATTEMPTS = 3;

export class SqlRoleAssignmentRepository implements RoleAssignmentRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async assign(assignment: RoleAssignment): Promise<AssignResult> {
    const values = {
      principal_id: assignment.principal_id,
      role_name: assignment.role_name,
      scope: assignment.scope,
      assigned_by: assignment.assigned_by,
      assigned_at: assignment.assigned_at,
    };
    for (let attempt = 0; attempt < ASSIGN_ATTEMPTS; attempt++) {
      const created = await this.db
        .insertInto("role_assignments")
        .values(values)
        .onConflict((oc) => oc.columns(["principal_id", "role_name", "scope"]).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (created) return { created: true, assignment: created };
      const existing = await this.db
        .selectFrom("role_assignments")
        .selectAll()
        .where("principal_id", "=", values.principal_id)
        .where("role_name", "=", values.role_name)
        .where("scope", "=", values.scope)
        .executeTakeFirst();
      if (existing) return { created: false, assignment: existing };
    }
    throw new Error(`role assignment of '${values.role_name}' kept changing concurrently`);
  }

  async revoke(principalId: string, roleName: string, scope: RoleScope): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("role_assignments")
      .where("principal_id", "=", principalId)
      .where("role_name", "=", roleName)
      .where("scope", "=", scope)
      .returning("principal_id")
      .execute();
    return rows.length > 0;
  }

  async listByPrincipal(principalId: string, scope?: RoleScope): Promise<RoleAssignment[]> {
    let select = this.db.selectFrom("role_assignments").selectAll().where("principal_id", "=", principalId);
    if (scope !== undefined && scope !== "*") select = select.where("scope", "=", scope);
    return select.orderBy("role_name").orderBy("scope").execute();
  }

  async listPrincipals(): Promise<string[]> {
    const rows = await this.db
      .selectFrom("role_assignments")
      .select("principal_id")
      .distinct()
      .orderBy("principal_id")
      .execute();
    return rows.map((row) => row.principal_id);
  }

  async revokeRole(roleName: string): Promise<number> {
    const rows = await this.db
      .deleteFrom("role_assignments")
      .where("role_name", "=", roleName)
      .returning("principal_id")
      .execute();
    return rows.length;
  }
}
