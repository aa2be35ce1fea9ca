import type { Kysely } from "kysely";
import type { BlockedServer, BlockedServerRepository } from "../../../app/ports/blocked-server-repository.js";
import type { StoreTables } from "./store-tables.js";

export class SqlBlockedServerRepository implements BlockedServerRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async put(record: BlockedServer): Promise<void> {
    await this.db
      .insertInto("blocked_servers")
      .values({ ...record })
      .onConflict((oc) => oc.column("mcp_server_id").doNothing())
      .execute();
  }

  async remove(mcpServerId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("blocked_servers")
      .where("mcp_server_id", "=", mcpServerId)
      .returning("mcp_server_id")
      .execute();
    return rows.length > 0;
  }

  async list(): Promise<BlockedServer[]> {
    return this.db.selectFrom("blocked_servers").selectAll().orderBy("mcp_server_id").execute();
  }
}
