import type {
  DiscoveryRejection,
  DiscoveryRejectionRepository,
} from "../../../app/ports/discovery-rejection-repository.js";
import { byText } from "./memory-helpers.js";

export class MemoryDiscoveryRejectionRepository implements DiscoveryRejectionRepository {
  private readonly records = new Map<string, DiscoveryRejection>();

  async put(record: DiscoveryRejection): Promise<void> {
    this.records.set(record.mcp_server_id, { ...record });
  }

  async remove(mcpServerId: string): Promise<boolean> {
    return this.records.delete(mcpServerId);
  }

  async list(): Promise<DiscoveryRejection[]> {
    return [...this.records.values()]
      .sort((a, b) => byText(a.mcp_server_id, b.mcp_server_id))
      .map((record) => ({ ...record }));
  }
}
