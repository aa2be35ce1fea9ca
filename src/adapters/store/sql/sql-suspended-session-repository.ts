import type { Kysely } from "kysely";
import type {
  SuspendedSession,
  SuspendedSessionRepository,
} from "../../../app/ports/suspended-session-repository.js";
import type { StoreTables } from "./store-tables.js";

export class SqlSuspendedSessionRepository implements SuspendedSessionRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async suspend(session: SuspendedSession): Promise<void> {
    await this.db
      .insertInto("suspended_sessions")
      .values({
        session_id: session.session_id,
        reason: session.reason,
        suspended_by: session.suspended_by,
        replica: session.replica,
        suspended_at: session.suspended_at,
      })
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet((eb) => ({
          reason: eb.ref("excluded.reason"),
          suspended_by: eb.ref("excluded.suspended_by"),
          replica: eb.ref("excluded.replica"),
          suspended_at: eb.ref("excluded.suspended_at"),
        })),
      )
      .execute();
  }

  async resume(sessionId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("suspended_sessions")
      .where("session_id", "=", sessionId)
      .returning("session_id")
      .execute();
    return rows.length > 0;
  }

  async isSuspended(sessionId: string): Promise<boolean> {
    return (await this.get(sessionId)) !== undefined;
  }

  async get(sessionId: string): Promise<SuspendedSession | undefined> {
    return this.db
      .selectFrom("suspended_sessions")
      .selectAll()
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
  }

  async list(): Promise<SuspendedSession[]> {
    return this.db
      .selectFrom("suspended_sessions")
      .selectAll()
      .orderBy("suspended_at")
      .orderBy("session_id")
      .execute();
  }
}
