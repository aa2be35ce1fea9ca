import type {
  ConsoleSessionRecord,
  ConsoleSessionRepository,
} from "../../../app/ports/console-session-repository.js";

export class MemoryConsoleSessionRepository implements ConsoleSessionRepository {
  private readonly sessions = new Map<string, ConsoleSessionRecord>();

  async create(session: ConsoleSessionRecord): Promise<void> {
    if (this.sessions.has(session.token_hash)) throw new Error("console session already exists");
    this.sessions.set(session.token_hash, { ...session, roles: [...session.roles] });
  }

  async find(tokenHash: string): Promise<ConsoleSessionRecord | undefined> {
    const session = this.sessions.get(tokenHash);
    return session && { ...session, roles: [...session.roles] };
  }

  async end(tokenHash: string): Promise<boolean> {
    return this.sessions.delete(tokenHash);
  }

  async prune(olderThan: number): Promise<number> {
    let removed = 0;
    for (const [hash, session] of this.sessions) {
      if (session.expires_at < olderThan) {
        this.sessions.delete(hash);
        removed += 1;
      }
    }
    return removed;
  }
}
