import type { Kysely } from "kysely";
import type {
  DiscoveryRejection,
  DiscoveryRejectionRepository,
} from "../../../app/ports/discovery-rejection-repository.js";
import type { StoreTables } from "./store-tables.js";

export class SqlDiscoveryRejectionRepository implements DiscoveryRejectionRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async put(record: DiscoveryRejection): Promise<void> {
    await this.db
      .insertInto("discovery_rejections")
      .values({ ...record })
      .onConflict((oc) =>
        oc.column("mcp_server_id").doUpdateSet((eb) => ({
          fingerprint: eb.ref("excluded.fingerprint"),
          rejected_by: eb.ref("excluded.rejected_by"),
          rejected_at: eb.ref("excluded.rejected_at"),
        })),
      )
      .execute();
  }

  async remove(mcpServerId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("discovery_rejections")
      .where("mcp_server_id", "=", mcpServerId)
      .returning("mcp_server_id")
      .execute();
    return rows.length > 0;
  }

  async list(): Promise<DiscoveryRejection[]> {
    return this.db.selectFrom("discovery_rejections").selectAll().orderBy("mcp_server_id").execute();
  }
}
