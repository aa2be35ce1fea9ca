import type { McpSessionRecord, McpSessionRepository } from "../../../app/ports/mcp-session-repository.js";
import { jsonCopy } from "./memory-helpers.js";

export class MemoryMcpSessionRepository implements McpSessionRepository {
  readonly shared = false;
  private readonly sessions = new Map<string, McpSessionRecord>();

  async create(record: McpSessionRecord): Promise<void> {
    if (!this.sessions.has(record.session_id)) this.sessions.set(record.session_id, jsonCopy(record));
  }

  async get(sessionId: string): Promise<McpSessionRecord | undefined> {
    const record = this.sessions.get(sessionId);
    return record && jsonCopy(record);
  }

  async touch(seen: ReadonlyArray<{ session_id: string; last_seen_at: number }>): Promise<void> {
    for (const { session_id, last_seen_at } of seen) {
      const record = this.sessions.get(session_id);
      if (record && record.ended_at === null && record.last_seen_at < last_seen_at) {
        this.sessions.set(session_id, { ...record, last_seen_at });
      }
    }
  }

  async end(sessionId: string, at: number): Promise<boolean> {
    const record = this.sessions.get(sessionId);
    if (!record || record.ended_at !== null) return false;
    this.sessions.set(sessionId, { ...record, ended_at: at });
    return true;
  }

  async purge(before: number): Promise<number> {
    let purged = 0;
    for (const [id, record] of this.sessions) {
      if (record.last_seen_at < before || (record.ended_at !== null && record.ended_at < before)) {
        this.sessions.delete(id);
        purged++;
      }
    }
    return purged;
  }
}
