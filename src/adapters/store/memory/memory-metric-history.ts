import type { MetricHistory, MetricQuery, MetricSample } from "../../../app/ports/metric-history.js";
import { clampLimit, jsonCopy } from "./memory-helpers.js";

const DEFAULT_LIMIT = 10_000;
const MAX_LIMIT = 100_000;

export class MemoryMetricHistory implements MetricHistory {
  /** In order of appending. */
  private samples: MetricSample[] = [];

  async append(samples: readonly MetricSample[]): Promise<void> {
    const bad = samples.find((s) => !Number.isFinite(s.value));
    if (bad) throw new RangeError(`metric ${bad.name} has a value that is not finite: ${bad.value}`);
    for (const sample of jsonCopy(samples)) this.samples.push(sample);
  }

  async query(query: MetricQuery): Promise<MetricSample[]> {
    // The stable sort keeps append order among equal `recorded_at`; reversed, newest first.
    const ordered = this.samples
      .filter((s) => s.recorded_at >= query.since && (query.name === undefined || s.name === query.name))
      .sort((a, b) => a.recorded_at - b.recorded_at);
    if (query.newestFirst) ordered.reverse();
    return ordered.slice(0, clampLimit(query.limit, DEFAULT_LIMIT, MAX_LIMIT)).map(jsonCopy);
  }

  async prune(olderThan: number): Promise<number> {
    const before = this.samples.length;
    this.samples = this.samples.filter((s) => s.recorded_at >= olderThan);
    return before - this.samples.length;
  }
}
