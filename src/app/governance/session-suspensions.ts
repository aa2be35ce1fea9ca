import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { SuspendedSession, SuspendedSessionRepository } from "../ports/suspended-session-repository.js";
import { SharedReader } from "./shared-reader.js";

/**
 * Suspended MCP sessions of the gateway's own endpoint (spec 1 "Session"): a registry of this
 * replica, written through to the shared store, which is how other replicas learn of a suspension
 * (they read it again within the configured age, on the call path).
 */
export class SessionSuspensions {
  private suspended = new Set<string>();
  private readonly reader: SharedReader<SuspendedSession[]>;

  constructor(
    private readonly repository: SuspendedSessionRepository,
    deps: { clock: Clock; logger: Logger; maxAgeMs: number },
  ) {
    this.reader = new SharedReader(
      () => repository.list(),
      (records) => {
        this.suspended = new Set(records.map((record) => record.session_id));
      },
      { ...deps, what: "suspended_sessions" },
    );
  }

  fresh(): Promise<void> | undefined {
    return this.reader.fresh();
  }

  reload(): Promise<void> {
    return this.reader.reload();
  }

  async suspend(record: SuspendedSession): Promise<void> {
    await this.repository.suspend(record);
    this.suspended.add(record.session_id);
    // A read under way may predate the write and drop the id again: read once more after it.
    await this.reader.reload();
  }

  /** True when the session was suspended. */
  async resume(sessionId: string): Promise<boolean> {
    const resumed = await this.repository.resume(sessionId);
    this.suspended.delete(sessionId);
    await this.reader.reload();
    return resumed;
  }

  isSuspended(sessionId: string): boolean {
    return this.suspended.has(sessionId);
  }
}
