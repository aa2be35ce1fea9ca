import type { BlockedServer, BlockedServerRepository } from "../../../app/ports/blocked-server-repository.js";
import { byText } from "./memory-helpers.js";

export class MemoryBlockedServerRepository implements BlockedServerRepository {
  private readonly records = new Map<string, BlockedServer>();

  async put(record: BlockedServer): Promise<void> {
    if (!this.records.has(record.mcp_server_id)) this.records.set(record.mcp_server_id, { ...record });
  }

  async remove(mcpServerId: string): Promise<boolean> {
    return this.records.delete(mcpServerId);
  }

  async list(): Promise<BlockedServer[]> {
    return [...this.records.values()]
      .sort((a, b) => byText(a.mcp_server_id, b.mcp_server_id))
      .map((record) => ({ ...record }));
  }
}
