import type { Kysely } from "kysely";
import type { ReplicaRecord, ReplicaRegistry } from "../../../app/ports/replica-registry.js";
import type { StoreTables } from "./store-tables.js";

interface ReplicaRow {
  instance_id: string;
  host: string;
  address: string | null;
  version: string;
  started_at: number;
  last_seen_at: number;
}

export class SqlReplicaRegistry implements ReplicaRegistry {
  private readonly db: Kysely<StoreTables & { replicas: ReplicaRow }>;

  constructor(db: Kysely<StoreTables>) {
    this.db = db.withTables<{ replicas: ReplicaRow }>();
  }

  async beat(replica: ReplicaRecord): Promise<void> {
    const { instance_id: _id, ...fields } = replica;
    await this.db
      .insertInto("replicas")
      .values({ ...replica })
      .onConflict((conflict) => conflict.column("instance_id").doUpdateSet(fields))
      .execute();
  }

  async live(since: number): Promise<ReplicaRecord[]> {
    const rows = await this.db
      .selectFrom("replicas")
      .selectAll()
      .where("last_seen_at", ">=", since)
      .orderBy("instance_id")
      .execute();
    return rows.map((row) => ({
      ...row,
      started_at: Number(row.started_at),
      last_seen_at: Number(row.last_seen_at),
    }));
  }

  async remove(instanceId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("replicas")
      .where("instance_id", "=", instanceId)
      .returning("instance_id")
      .execute();
    return rows.length > 0;
  }

  async prune(olderThan: number): Promise<number> {
    const rows = await this.db
      .deleteFrom("replicas")
      .where("last_seen_at", "<", olderThan)
      .returning("instance_id")
      .execute();
    return rows.length;
  }
}
