import type { GroupConfigRepository } from "../../../app/ports/group-config-repository.js";
import type { GroupInput } from "../../../domain/group/group-snapshot.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemoryGroupConfigRepository implements GroupConfigRepository {
  private readonly groups = new Map<string, GroupInput>();

  async save(group: GroupInput): Promise<void> {
    this.groups.set(group.group_id, jsonCopy(group));
  }

  async delete(groupId: string): Promise<boolean> {
    return this.groups.delete(groupId);
  }

  async list(): Promise<GroupInput[]> {
    return [...this.groups.values()].sort((a, b) => byText(a.group_id, b.group_id)).map(jsonCopy);
  }
}
