import type { Kysely } from "kysely";
import type { MetricHistory, MetricQuery, MetricSample } from "../../../app/ports/metric-history.js";
import { chunks, clampLimit, fromJson, toJson } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

const DEFAULT_LIMIT = 10_000;
const MAX_LIMIT = 100_000;

export class SqlMetricHistory implements MetricHistory {
  constructor(private readonly db: Kysely<StoreTables>) {}

  async append(samples: readonly MetricSample[]): Promise<void> {
    const bad = samples.find((s) => !Number.isFinite(s.value));
    if (bad) throw new RangeError(`metric ${bad.name} has a value that is not finite: ${bad.value}`);
    if (samples.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const batch of chunks(samples)) {
        await trx
          .insertInto("metric_samples")
          .values(
            batch.map((s) => ({
              name: s.name,
              labels: toJson(s.labels),
              value: s.value,
              recorded_at: s.recorded_at,
            })),
          )
          .execute();
      }
    });
  }

  async query(query: MetricQuery): Promise<MetricSample[]> {
    let select = this.db
      .selectFrom("metric_samples")
      .select(["name", "labels", "value", "recorded_at"])
      .where("recorded_at", ">=", query.since);
    if (query.name !== undefined) select = select.where("name", "=", query.name);
    const direction = query.newestFirst ? "desc" : "asc";
    const rows = await select
      .orderBy("recorded_at", direction)
      .orderBy("seq", direction)
      .limit(clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT))
      .execute();
    return rows.map((row) => ({ ...row, labels: fromJson<Record<string, string>>(row.labels) }));
  }

  async prune(olderThan: number): Promise<number> {
    const result = await this.db
      .deleteFrom("metric_samples")
      .where("recorded_at", "<", olderThan)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
