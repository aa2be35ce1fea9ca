import type { RoleChanges, RoleRecord, RoleRepository } from "../../../app/ports/role-repository.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemoryRoleRepository implements RoleRepository {
  private readonly roles = new Map<string, RoleRecord>();

  async create(role: Omit<RoleRecord, "updated_at">): Promise<boolean> {
    if (this.roles.has(role.role_name)) return false;
    this.roles.set(role.role_name, jsonCopy({ ...role, updated_at: role.created_at }));
    return true;
  }

  async get(roleName: string): Promise<RoleRecord | undefined> {
    const role = this.roles.get(roleName);
    return role && jsonCopy(role);
  }

  async list(): Promise<RoleRecord[]> {
    return [...this.roles.values()].sort((a, b) => byText(a.role_name, b.role_name)).map(jsonCopy);
  }

  async update(roleName: string, changes: RoleChanges): Promise<RoleRecord | undefined> {
    const role = this.roles.get(roleName);
    if (!role) return undefined;
    const next: RoleRecord = jsonCopy({
      ...role,
      updated_at: changes.updated_at,
      ...(changes.description !== undefined && { description: changes.description }),
      ...(changes.permissions !== undefined && { permissions: changes.permissions }),
    });
    this.roles.set(roleName, next);
    return jsonCopy(next);
  }

  async delete(roleName: string): Promise<boolean> {
    return this.roles.delete(roleName);
  }
}
