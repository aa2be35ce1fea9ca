import type { Kysely, Selectable } from "kysely";
import type { L7PolicyRecord, L7PolicyRepository } from "../../../app/ports/l7-policy-repository.js";
import type { L7Policy } from "../../../domain/egress/l7-policy.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["l7_policies"]>;

const toRecord = (row: Row): L7PolicyRecord => ({
  mcp_server_id: row.mcp_server_id,
  policy: fromJson<L7Policy>(row.policy),
  policy_id: row.policy_id,
  updated_at: row.updated_at,
  updated_by: row.updated_by,
});

export class SqlL7PolicyRepository implements L7PolicyRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async get(mcpServerId: string): Promise<L7PolicyRecord | undefined> {
    const row = await this.db
      .selectFrom("l7_policies")
      .selectAll()
      .where("mcp_server_id", "=", mcpServerId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async set(record: L7PolicyRecord): Promise<void> {
    await this.db
      .insertInto("l7_policies")
      .values({
        mcp_server_id: record.mcp_server_id,
        policy: toJson(record.policy),
        policy_id: record.policy_id,
        updated_at: record.updated_at,
        updated_by: record.updated_by,
      })
      .onConflict((oc) =>
        oc.column("mcp_server_id").doUpdateSet((eb) => ({
          policy: eb.ref("excluded.policy"),
          policy_id: eb.ref("excluded.policy_id"),
          updated_at: eb.ref("excluded.updated_at"),
          updated_by: eb.ref("excluded.updated_by"),
        })),
      )
      .execute();
  }

  async delete(mcpServerId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("l7_policies")
      .where("mcp_server_id", "=", mcpServerId)
      .returning("mcp_server_id")
      .execute();
    return rows.length > 0;
  }

  async list(): Promise<L7PolicyRecord[]> {
    const rows = await this.db.selectFrom("l7_policies").selectAll().orderBy("mcp_server_id").execute();
    return rows.map(toRecord);
  }
}
