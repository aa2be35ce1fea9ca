import type { Kysely, Selectable } from "kysely";
import type {
  ToolWithdrawal,
  ToolWithdrawalRepository,
} from "../../../app/ports/tool-withdrawal-repository.js";
import type { StoreTables } from "./store-tables.js";

/**
 * The `tool_withdrawals` table keeps a withdrawal for every tenant under the tenant `''` (tenant ids
 * are never empty), so that the primary key covers it: SQL's NULLs are all distinct in a key.
 */
const EVERY_TENANT = "";

const toRecord = (row: Selectable<StoreTables["tool_withdrawals"]>): ToolWithdrawal => ({
  mcp_server_id: row.mcp_server_id,
  tool_name: row.tool_name,
  tenant_id: row.tenant_id === EVERY_TENANT ? null : row.tenant_id,
  withdrawn_by: row.withdrawn_by,
  withdrawn_at: row.withdrawn_at,
});

export class SqlToolWithdrawalRepository implements ToolWithdrawalRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async withdraw(record: ToolWithdrawal): Promise<void> {
    // '' stands for every tenant here: an empty tenant id must not turn into that.
    if (record.tenant_id === EVERY_TENANT)
      throw new TypeError("tool withdrawal: tenant_id must not be empty");
    await this.db
      .insertInto("tool_withdrawals")
      .values({
        mcp_server_id: record.mcp_server_id,
        tool_name: record.tool_name,
        tenant_id: record.tenant_id ?? EVERY_TENANT,
        withdrawn_by: record.withdrawn_by,
        withdrawn_at: record.withdrawn_at,
      })
      .onConflict((oc) =>
        oc.columns(["mcp_server_id", "tool_name", "tenant_id"]).doUpdateSet((eb) => ({
          withdrawn_by: eb.ref("excluded.withdrawn_by"),
          withdrawn_at: eb.ref("excluded.withdrawn_at"),
        })),
      )
      .execute();
  }

  async restore(server: string, tool: string, tenant: string | null): Promise<boolean> {
    if (tenant === EVERY_TENANT) throw new TypeError("tool withdrawal: tenant_id must not be empty");
    let remove = this.db
      .deleteFrom("tool_withdrawals")
      .where("mcp_server_id", "=", server)
      .where("tool_name", "=", tool);
    if (tenant !== null) remove = remove.where("tenant_id", "=", tenant);
    const rows = await remove.returning("tool_name").execute();
    return rows.length > 0;
  }

  async list(): Promise<ToolWithdrawal[]> {
    const rows = await this.db
      .selectFrom("tool_withdrawals")
      .selectAll()
      .orderBy("withdrawn_at")
      .orderBy("mcp_server_id")
      .orderBy("tool_name")
      .orderBy("tenant_id")
      .execute();
    return rows.map(toRecord);
  }
}
