import type { Kysely, Selectable } from "kysely";
import type { SagaRecord, SagaSave, SagaSaveResult, SagaStore } from "../../../app/ports/saga-store.js";
import { fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

type Row = Selectable<StoreTables["sagas"]>;

const toRecord = (row: Row): SagaRecord => ({
  saga_id: row.saga_id,
  saga_type: row.saga_type,
  state: fromJson<unknown>(row.state),
  version: row.version,
  updated_at: row.updated_at,
});

export class SqlSagaStore implements SagaStore {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async save(saga: SagaSave, expectedVersion: number): Promise<SagaSaveResult> {
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
      throw new RangeError(`expected version must be a non-negative integer, got ${expectedVersion}`);
    }
    const version = expectedVersion + 1;
    const values = {
      saga_type: saga.saga_type,
      state: toJson(saga.state),
      version,
      updated_at: saga.updated_at,
    };
    // Both statements are single conditional writes: the database decides the race.
    const written =
      expectedVersion === 0
        ? await this.db
            .insertInto("sagas")
            .values({ saga_id: saga.saga_id, ...values })
            .onConflict((oc) => oc.column("saga_id").doNothing())
            .returning("version")
            .executeTakeFirst()
        : await this.db
            .updateTable("sagas")
            .set(values)
            .where("saga_id", "=", saga.saga_id)
            .where("version", "=", expectedVersion)
            .returning("version")
            .executeTakeFirst();
    if (written) return { saved: true, version: written.version };
    const current = await this.db
      .selectFrom("sagas")
      .select("version")
      .where("saga_id", "=", saga.saga_id)
      .executeTakeFirst();
    return { saved: false, current_version: current?.version ?? null };
  }

  async load(sagaId: string): Promise<SagaRecord | undefined> {
    const row = await this.db
      .selectFrom("sagas")
      .selectAll()
      .where("saga_id", "=", sagaId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async listByType(sagaType: string): Promise<SagaRecord[]> {
    const rows = await this.db
      .selectFrom("sagas")
      .selectAll()
      .where("saga_type", "=", sagaType)
      .orderBy("saga_id")
      .execute();
    return rows.map(toRecord);
  }

  async delete(sagaId: string): Promise<boolean> {
    const rows = await this.db
      .deleteFrom("sagas")
      .where("saga_id", "=", sagaId)
      .returning("saga_id")
      .execute();
    return rows.length > 0;
  }
}
