import type { Kysely, Selectable } from "kysely";
import type { RoleChanges, RoleRecord, RoleRepository } from "../../../app/ports/role-repository.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["roles"]>;

const toRecord = (row: Row): RoleRecord => ({ ...row, permissions: fromJson<string[]>(row.permissions) });

export class SqlRoleRepository implements RoleRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async create(role: Omit<RoleRecord, "updated_at">): Promise<boolean> {
    const row = await this.db
      .insertInto("roles")
      .values({
        role_name: role.role_name,
        description: role.description,
        permissions: toJson(role.permissions),
        created_at: role.created_at,
        created_by: role.created_by,
        updated_at: role.created_at,
      })
      .onConflict((oc) => oc.column("role_name").doNothing())
      .returning("role_name")
      .executeTakeFirst();
    return row !== undefined;
  }

  async get(roleName: string): Promise<RoleRecord | undefined> {
    const row = await this.db
      .selectFrom("roles")
      .selectAll()
      .where("role_name", "=", roleName)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async list(): Promise<RoleRecord[]> {
    const rows = await this.db.selectFrom("roles").selectAll().orderBy("role_name").execute();
    return rows.map(toRecord);
  }

  async update(roleName: string, changes: RoleChanges): Promise<RoleRecord | undefined> {
    const row = await this.db
      .updateTable("roles")
      .set({
        updated_at: changes.updated_at,
        ...(changes.description !== undefined && { description: changes.description }),
        ...(changes.permissions !== undefined && { permissions: toJson(changes.permissions) }),
      })
      .where("role_name", "=", roleName)
      .returningAll()
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async delete(roleName: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("roles")
      .where("role_name", "=", roleName)
      .returning("role_name")
      .execute();
    return rows.length > 0;
  }
}
