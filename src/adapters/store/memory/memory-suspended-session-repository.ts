import type {
  SuspendedSession,
  SuspendedSessionRepository,
} from "../../../app/ports/suspended-session-repository.js";
import { byText } from "./memory-helpers.js";

export class MemorySuspendedSessionRepository implements SuspendedSessionRepository {
  private readonly sessions = new Map<string, SuspendedSession>();

  async suspend(session: SuspendedSession): Promise<void> {
    this.sessions.set(session.session_id, {
      session_id: session.session_id,
      reason: session.reason,
      suspended_by: session.suspended_by,
      replica: session.replica,
      suspended_at: session.suspended_at,
    });
  }

  async resume(sessionId: string): Promise<boolean> {
    return this.sessions.delete(sessionId);
  }

  async isSuspended(sessionId: string): Promise<boolean> {
    return this.sessions.has(sessionId);
  }

  async get(sessionId: string): Promise<SuspendedSession | undefined> {
    const session = this.sessions.get(sessionId);
    return session && { ...session };
  }

  async list(): Promise<SuspendedSession[]> {
    return [...this.sessions.values()]
      .sort((a, b) => a.suspended_at - b.suspended_at || byText(a.session_id, b.session_id))
      .map((s) => ({ ...s }));
  }
}
