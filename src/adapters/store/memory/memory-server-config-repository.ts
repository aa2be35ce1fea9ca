import type {
  ServerConfigRepository,
  StoredServerConfig,
} from "../../../app/ports/server-config-repository.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { byText, jsonCopy } from "./memory-helpers.js";

export class MemoryServerConfigRepository implements ServerConfigRepository {
  private readonly records = new Map<string, StoredServerConfig>();

  async save(spec: ServerSpec, at: number): Promise<StoredServerConfig> {
    const created_at = this.records.get(spec.id)?.created_at ?? at;
    const record: StoredServerConfig = { id: spec.id, spec: jsonCopy(spec), created_at, updated_at: at };
    this.records.set(spec.id, record);
    return jsonCopy(record);
  }

  async get(id: string): Promise<StoredServerConfig | undefined> {
    const record = this.records.get(id);
    return record && jsonCopy(record);
  }

  async delete(id: string): Promise<boolean> {
    return this.records.delete(id);
  }

  async list(): Promise<StoredServerConfig[]> {
    return [...this.records.values()].sort((a, b) => byText(a.id, b.id)).map(jsonCopy);
  }
}
