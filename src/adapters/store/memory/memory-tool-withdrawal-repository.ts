import type {
  ToolWithdrawal,
  ToolWithdrawalRepository,
} from "../../../app/ports/tool-withdrawal-repository.js";
import { byText } from "./memory-helpers.js";

export class MemoryToolWithdrawalRepository implements ToolWithdrawalRepository {
  private readonly records = new Map<string, ToolWithdrawal>();

  async withdraw(record: ToolWithdrawal): Promise<void> {
    if (record.tenant_id === "") throw new TypeError("tool withdrawal: tenant_id must not be empty");
    this.records.set(key(record.mcp_server_id, record.tool_name, record.tenant_id), {
      mcp_server_id: record.mcp_server_id,
      tool_name: record.tool_name,
      tenant_id: record.tenant_id,
      withdrawn_by: record.withdrawn_by,
      withdrawn_at: record.withdrawn_at,
    });
  }

  async restore(server: string, tool: string, tenant: string | null): Promise<boolean> {
    if (tenant === "") throw new TypeError("tool withdrawal: tenant_id must not be empty");
    if (tenant !== null) return this.records.delete(key(server, tool, tenant));
    let removed = false;
    for (const [id, record] of this.records) {
      if (record.mcp_server_id === server && record.tool_name === tool) removed = this.records.delete(id);
    }
    return removed;
  }

  async list(): Promise<ToolWithdrawal[]> {
    return [...this.records.values()]
      .sort(
        (a, b) =>
          a.withdrawn_at - b.withdrawn_at ||
          byText(a.mcp_server_id, b.mcp_server_id) ||
          byText(a.tool_name, b.tool_name) ||
          byText(a.tenant_id ?? "", b.tenant_id ?? ""),
      )
      .map((record) => ({ ...record }));
  }
}

function key(server: string, tool: string, tenant: string | null): string {
  return JSON.stringify([server, tool, tenant]);
}
