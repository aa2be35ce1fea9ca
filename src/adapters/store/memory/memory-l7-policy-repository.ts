import type { L7PolicyRecord, L7PolicyRepository } from "../../../app/ports/l7-policy-repository.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemoryL7PolicyRepository implements L7PolicyRepository {
  private readonly policies = new Map<string, L7PolicyRecord>();

  async get(mcpServerId: string): Promise<L7PolicyRecord | undefined> {
    const record = this.policies.get(mcpServerId);
    return record && jsonCopy(record);
  }

  async set(record: L7PolicyRecord): Promise<void> {
    this.policies.set(record.mcp_server_id, jsonCopy(record));
  }

  async delete(mcpServerId: string): Promise<boolean> {
    return this.policies.delete(mcpServerId);
  }

  async list(): Promise<L7PolicyRecord[]> {
    return [...this.policies.values()].sort((a, b) => byText(a.mcp_server_id, b.mcp_server_id)).map(jsonCopy);
  }
}
