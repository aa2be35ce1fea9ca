import type { AuditQuery, AuditRecord, AuditTrail } from "../../../app/ports/audit-trail.js";
import { clampLimit, jsonCopy } from "./memory-helpers.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

export class MemoryAuditTrail implements AuditTrail {
  /** In order of appending. */
  private readonly records: AuditRecord[] = [];
  private readonly ids = new Set<string>();

  async append(records: readonly AuditRecord[]): Promise<void> {
    // Copied before anything is stored, so a record that cannot be copied leaves the trail unchanged.
    for (const record of jsonCopy(records)) {
      if (this.ids.has(record.id)) continue;
      this.ids.add(record.id);
      this.records.push(record);
    }
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const matching: AuditRecord[] = [];
    // Newest first: walking backwards gives reverse append order for equal `occurred_at`, and the
    // stable sort keeps it.
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (query.from !== undefined && r.occurred_at < query.from) continue;
      if (query.to !== undefined && r.occurred_at >= query.to) continue;
      if (query.actor !== undefined && r.actor !== query.actor) continue;
      if (query.action !== undefined && r.action !== query.action) continue;
      if (query.tenant_id !== undefined && r.tenant_id !== query.tenant_id) continue;
      matching.push(r);
    }
    matching.sort((a, b) => b.occurred_at - a.occurred_at);
    return matching.slice(0, clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT)).map(jsonCopy);
  }
}
