import type { Kysely, Selectable } from "kysely";
import type {
  ServerConfigRepository,
  StoredServerConfig,
} from "../../../app/ports/server-config-repository.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["server_configs"]>;

const toRecord = (row: Row): StoredServerConfig => ({
  id: row.id,
  spec: fromJson<ServerSpec>(row.spec),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export class SqlServerConfigRepository implements ServerConfigRepository {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async save(spec: ServerSpec, at: number): Promise<StoredServerConfig> {
    const row = await this.db
      .insertInto("server_configs")
      .values({ id: spec.id, spec: toJson(spec), created_at: at, updated_at: at })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet((eb) => ({
          spec: eb.ref("excluded.spec"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  async get(id: string): Promise<StoredServerConfig | undefined> {
    const row = await this.db
      .selectFrom("server_configs")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.db.deleteFrom("server_configs").where("id", "=", id).returning("id").execute();
    return rows.length > 0;
  }

  async list(): Promise<StoredServerConfig[]> {
    const rows = await this.db.selectFrom("server_configs").selectAll().orderBy("id").execute();
    return rows.map(toRecord);
  }
}
