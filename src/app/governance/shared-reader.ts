import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";

/**
 * A local copy of records kept in the shared store, read again at most once per `maxAgeMs` when
 * asked to be fresh: changes made through this replica are applied to the copy at once, changes of
 * other replicas are seen within `maxAgeMs`. Concurrent callers share one read. A failed read keeps
 * the last copy (logged), so a store outage does not drop the rules already known.
 */
export class SharedReader<T> {
  private loadedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly apply: (records: T) => void,
    private readonly deps: { clock: Clock; logger: Logger; maxAgeMs: number; what: string },
  ) {}

  /**
   * Reads the store when the copy is older than `maxAgeMs` (joining a read under way); undefined,
   * no promise, when the copy is fresh (the call path asks on every call).
   */
  fresh(): Promise<void> | undefined {
    if (this.deps.clock.monotonic() - this.loadedAt < this.deps.maxAgeMs) return undefined;
    return this.reading ?? this.reload();
  }

  /**
   * Reads the store now (after a change through this replica, or at start). A read already under
   * way may have started before the change, so this one starts after it.
   */
  reload(): Promise<void> {
    const next = (this.reading ?? Promise.resolve()).then(() => this.readOnce());
    this.reading = next;
    void next.finally(() => {
      if (this.reading === next) this.reading = null;
    });
    return next;
  }

  private async readOnce(): Promise<void> {
    try {
      const records = await this.read();
      this.apply(records);
    } catch (error) {
      this.deps.logger.error(
        { err: String(error), records: this.deps.what },
        "shared store not readable; the last known records stay in force",
      );
    } finally {
      // A failed read is retried after the same wait, so an outage does not cost a read per call.
      this.loadedAt = this.deps.clock.monotonic();
    }
  }
}
