import {
  AUDIT_TOOL_DETAIL,
  type AuditQuery,
  type AuditRecord,
  type AuditTrail,
} from "../../../app/ports/audit-trail.js";
import { clampLimit, jsonCopy } from "./memory-helpers.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

export class MemoryAuditTrail implements AuditTrail {
  /** In order of appending: a record's index is its place among records of the same instant. */
  private readonly records: AuditRecord[] = [];
  /** Index in `records` by id. */
  private readonly ids = new Map<string, number>();

  async append(records: readonly AuditRecord[]): Promise<void> {
    // Copied before anything is stored, so a record that cannot be copied leaves the trail unchanged.
    for (const record of jsonCopy(records)) {
      if (this.ids.has(record.id)) continue;
      this.ids.set(record.id, this.records.length);
      this.records.push(record);
    }
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const cursor = query.after === undefined ? undefined : this.ids.get(query.after);
    if (query.after !== undefined && cursor === undefined) return [];
    const matching: AuditRecord[] = [];
    // Newest first: walking backwards gives reverse append order for equal `occurred_at`, and the
    // stable sort keeps it.
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (cursor !== undefined && !comesAfter(r, i, this.records[cursor]!, cursor)) continue;
      if (query.from !== undefined && r.occurred_at < query.from) continue;
      if (query.to !== undefined && r.occurred_at >= query.to) continue;
      if (query.actor !== undefined && r.actor !== query.actor) continue;
      if (query.action !== undefined && r.action !== query.action) continue;
      if (query.tenant_id !== undefined && r.tenant_id !== query.tenant_id) continue;
      if (query.target !== undefined && r.target !== query.target) continue;
      if (query.outcome !== undefined && r.outcome !== query.outcome) continue;
      if (query.tool !== undefined && r.details[AUDIT_TOOL_DETAIL] !== query.tool) continue;
      matching.push(r);
    }
    matching.sort((a, b) => b.occurred_at - a.occurred_at);
    return matching.slice(0, clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT)).map(jsonCopy);
  }
}

/** Whether record `r` (index `i`) comes after the cursor record `c` (index `ci`), newest first. */
function comesAfter(r: AuditRecord, i: number, c: AuditRecord, ci: number): boolean {
  return r.occurred_at < c.occurred_at || (r.occurred_at === c.occurred_at && i < ci);
}
