import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { StoreAvailability, StoreOutcomes, StoreProbe } from "../ports/store-availability.js";

export interface StoreAvailabilityDeps {
  clock: Clock;
  logger: Logger;
  /** The store's description, for logs and readiness. */
  description: string;
  probe: StoreProbe;
  /** Pause between two probes while the store is unreachable. */
  probeIntervalMs: number;
}

/**
 * Knows whether the shared store is reachable: the adapter reports each query's outcome, and
 * while the store is unreachable a probe runs every `probeIntervalMs` (one at a time), so the
 * return is noticed even when no caller sends traffic. Each transition is logged once.
 */
export class StoreAvailabilityTracker implements StoreAvailability, StoreOutcomes {
  private since: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly reachableListeners = new Set<() => void>();

  constructor(private readonly deps: StoreAvailabilityDeps) {}

  get description(): string {
    return this.deps.description;
  }

  unreachableSince(): number | null {
    return this.since;
  }

  onReachable(listener: () => void): () => void {
    this.reachableListeners.add(listener);
    return () => this.reachableListeners.delete(listener);
  }

  reached(): void {
    // The query path calls this on every success: one comparison while all is well.
    if (this.since === null) return;
    const downMs = this.deps.clock.monotonic() - this.since;
    this.since = null;
    this.cancelProbe();
    this.deps.logger.info(
      { store: this.deps.description, unreachable_for_s: round(downMs / 1000) },
      "store reachable again",
    );
    for (const listener of this.reachableListeners) {
      try {
        listener();
      } catch (error) {
        // One listener's failure must not keep the others from hearing the news.
        this.deps.logger.error({ err: String(error) }, "store-reachable listener failed");
      }
    }
  }

  unreachable(reason?: string): void {
    if (this.since !== null || this.closed) return;
    this.since = this.deps.clock.monotonic();
    this.deps.logger.warn(
      { store: this.deps.description, ...(reason !== undefined && { reason }) },
      "store unreachable: calls that need it answer StoreUnavailableError until it is back",
    );
    this.scheduleProbe();
  }

  /** Stops probing; the state no longer changes. */
  close(): void {
    this.closed = true;
    this.cancelProbe();
  }

  private scheduleProbe(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => void this.runProbe(), this.deps.probeIntervalMs);
    // A probe never keeps the process up.
    this.timer.unref();
  }

  private async runProbe(): Promise<void> {
    try {
      await this.deps.probe();
      this.timer = null;
      this.reached();
    } catch {
      // Still unreachable; the next probe follows.
      this.timer = null;
    }
    if (this.since !== null) this.scheduleProbe();
  }

  private cancelProbe(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

const round = (value: number) => Math.round(value * 10) / 10;
