import type { Kysely } from "kysely";
import type { GroupConfigRepository } from "../../../app/ports/group-config-repository.js";
import type { GroupInput } from "../../../domain/group/group-snapshot.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

export class SqlGroupConfigRepository implements GroupConfigRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async save(group: GroupInput, at: number): Promise<void> {
    await this.db
      .insertInto("group_configs")
      .values({ id: group.group_id, definition: toJson(group), created_at: at, updated_at: at })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet((eb) => ({
          definition: eb.ref("excluded.definition"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }

  async delete(groupId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("group_configs")
      .where("id", "=", groupId)
      .returning("id")
      .execute();
    return rows.length > 0;
  }

  async list(): Promise<GroupInput[]> {
    const rows = await this.db.selectFrom("group_configs").select("definition").orderBy("id").execute();
    return rows.map((row) => fromJson<GroupInput>(row.definition));
  }
}
