import type { ReplicaRecord, ReplicaRegistry } from "../../../app/ports/replica-registry.js";

export class MemoryReplicaRegistry implements ReplicaRegistry {
  private readonly rows = new Map<string, ReplicaRecord>();

  async beat(replica: ReplicaRecord): Promise<void> {
    this.rows.set(replica.instance_id, { ...replica });
  }

  async live(since: number): Promise<ReplicaRecord[]> {
    return [...this.rows.values()]
      .filter((row) => row.last_seen_at >= since)
      .sort((a, b) => (a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0))
      .map((row) => ({ ...row }));
  }

  async remove(instanceId: string): Promise<boolean> {
    return this.rows.delete(instanceId);
  }

  async prune(olderThan: number): Promise<number> {
    let removed = 0;
    for (const [id, row] of this.rows) {
      if (row.last_seen_at < olderThan) {
        this.rows.delete(id);
        removed += 1;
      }
    }
    return removed;
  }
}
