import type { Kysely } from "kysely";
import type {
  ConsoleSessionRecord,
  ConsoleSessionRepository,
} from "../../../app/ports/console-session-repository.js";
import type { StoreTables } from "./store-tables.js";

interface ConsoleSessionRow {
  token_hash: string;
  principal_id: string;
  principal_type: string;
  tenant_id: string | null;
  /** JSON list of strings. */
  roles: string;
  key_id: string | null;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export class SqlConsoleSessionRepository implements ConsoleSessionRepository {
  private readonly db: Kysely<StoreTables & { console_sessions: ConsoleSessionRow }>;

  constructor(db: Kysely<StoreTables>) {
    this.db = db.withTables<{ console_sessions: ConsoleSessionRow }>();
  }

  async create(session: ConsoleSessionRecord): Promise<void> {
    await this.db
      .insertInto("console_sessions")
      .values({ ...session, roles: JSON.stringify(session.roles) })
      .execute();
  }

  async find(tokenHash: string): Promise<ConsoleSessionRecord | undefined> {
    const row = await this.db
      .selectFrom("console_sessions")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      ...row,
      principal_type: row.principal_type === "jwt" ? "jwt" : "api_key",
      roles: JSON.parse(row.roles) as string[],
      created_at: Number(row.created_at),
      expires_at: Number(row.expires_at),
    };
  }

  async end(tokenHash: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("console_sessions")
      .where("token_hash", "=", tokenHash)
      .returning("token_hash")
      .execute();
    return rows.length > 0;
  }

  async prune(olderThan: number): Promise<number> {
    const rows = await this.db
      .deleteFrom("console_sessions")
      .where("expires_at", "<", olderThan)
      .returning("token_hash")
      .execute();
    return rows.length;
  }
}
