import type { Kysely } from "kysely";
import type { McpSessionRecord, McpSessionRepository } from "../../../app/ports/mcp-session-repository.js";
import type { SqlDialectName } from "../sql-store.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = StoreTables["mcp_sessions"];

export class SqlMcpSessionRepository implements McpSessionRepository {
  /** A SQLite file belongs to one gateway process; PostgreSQL is what replicas share. */
  readonly shared: boolean;

  constructor(
    private readonly db: Kysely<StoreTables>,
    dialect: SqlDialectName,
  ) {
    this.shared = dialect === "postgres";
  }

  async create(record: McpSessionRecord): Promise<void> {
    await this.db
      .insertInto("mcp_sessions")
      .values({
        session_id: record.session_id,
        principal_id: record.principal_id,
        protocol_version: record.protocol_version,
        client_info: toJson(record.client_info),
        client_capabilities: toJson(record.client_capabilities),
        created_at: record.created_at,
        last_seen_at: record.last_seen_at,
        ended_at: record.ended_at,
      })
      .onConflict((oc) => oc.column("session_id").doNothing())
      .execute();
  }

  async get(sessionId: string): Promise<McpSessionRecord | undefined> {
    const row = await this.db
      .selectFrom("mcp_sessions")
      .selectAll()
      .where("session_id", "=", sessionId)
      .executeTakeFirst();
    return row && fromRow(row);
  }

  async touch(seen: ReadonlyArray<{ session_id: string; last_seen_at: number }>): Promise<void> {
    if (seen.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (const { session_id, last_seen_at } of seen) {
        await tx
          .updateTable("mcp_sessions")
          .set({ last_seen_at })
          .where("session_id", "=", session_id)
          .where("last_seen_at", "<", last_seen_at)
          .where("ended_at", "is", null)
          .execute();
      }
    });
  }

  async end(sessionId: string, at: number): Promise<boolean> {
    const rows = await this.db
      .updateTable("mcp_sessions")
      .set({ ended_at: at })
      .where("session_id", "=", sessionId)
      .where("ended_at", "is", null)
      .returning("session_id")
      .execute();
    return rows.length > 0;
  }

  async purge(before: number): Promise<number> {
    const rows = await this.db
      .deleteFrom("mcp_sessions")
      .where((eb) => eb.or([eb("last_seen_at", "<", before), eb("ended_at", "<", before)]))
      .returning("session_id")
      .execute();
    return rows.length;
  }
}

function fromRow(row: Row): McpSessionRecord {
  return {
    session_id: row.session_id,
    principal_id: row.principal_id,
    protocol_version: row.protocol_version,
    client_info: fromJson(row.client_info),
    client_capabilities: fromJson(row.client_capabilities),
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    ended_at: row.ended_at,
  };
}
