import type { Kysely, Selectable } from "kysely";
import type {
  ToolAccessPolicyRecord,
  ToolAccessPolicyRepository,
  ToolAccessScope,
} from "../../../app/ports/tool-access-policy-repository.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["tool_access_policies"]>;

const toRecord = (row: Row): ToolAccessPolicyRecord => ({
  scope: row.scope as ToolAccessScope,
  target_id: row.target_id,
  allow_list: fromJson<string[]>(row.allow_list),
  deny_list: fromJson<string[]>(row.deny_list),
  updated_at: row.updated_at,
  updated_by: row.updated_by,
});

export class SqlToolAccessPolicyRepository implements ToolAccessPolicyRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async get(scope: ToolAccessScope, targetId: string): Promise<ToolAccessPolicyRecord | undefined> {
    const row = await this.db
      .selectFrom("tool_access_policies")
      .selectAll()
      .where("scope", "=", scope)
      .where("target_id", "=", targetId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async set(policy: ToolAccessPolicyRecord): Promise<void> {
    await this.db
      .insertInto("tool_access_policies")
      .values({
        scope: policy.scope,
        target_id: policy.target_id,
        allow_list: toJson(policy.allow_list),
        deny_list: toJson(policy.deny_list),
        updated_at: policy.updated_at,
        updated_by: policy.updated_by,
      })
      .onConflict((oc) =>
        oc.columns(["scope", "target_id"]).doUpdateSet((eb) => ({
          allow_list: eb.ref("excluded.allow_list"),
          deny_list: eb.ref("excluded.deny_list"),
          updated_at: eb.ref("excluded.updated_at"),
          updated_by: eb.ref("excluded.updated_by"),
        })),
      )
      .execute();
  }

  async delete(scope: ToolAccessScope, targetId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("tool_access_policies")
      .where("scope", "=", scope)
      .where("target_id", "=", targetId)
      .returning("scope")
      .execute();
    return rows.length > 0;
  }

  async list(scope?: ToolAccessScope): Promise<ToolAccessPolicyRecord[]> {
    let select = this.db.selectFrom("tool_access_policies").selectAll();
    if (scope !== undefined) select = select.where("scope", "=", scope);
    const rows = await select.orderBy("scope").orderBy("target_id").execute();
    return rows.map(toRecord);
  }
}
