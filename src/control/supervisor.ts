import type { Leadership } from "../app/coordination/leadership.js";
import type { Logger } from "../app/ports/logger.js";

/** A piece of leader-only work: started when this replica is elected, stopped when it is not. */
export interface Runnable {
  readonly name: string;
  start(): void;
  /** Resolves once the work has stopped (a run in progress has ended). */
  stop(): Promise<void> | void;
}

/**
 * Runs the leader-only work of a replica. With a `Leadership`, the runnables start on election and
 * stop on loss (the elector waits for the stop before it asks again or releases the lease);
 * without one this replica is the only one and runs them from `start()` to `stop()`.
 * Starts and stops are serialized, so a quick loss and re-election never runs a piece twice.
 */
export class Supervisor {
  private active = false;
  private started = false;
  private unsubscribe: (() => void) | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly runnables: readonly Runnable[],
    private readonly deps: { logger: Logger; leadership?: Leadership },
  ) {}

  /** True while the leader-only work runs on this replica. */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    const { leadership } = this.deps;
    if (!leadership) {
      this.enqueue(true);
      return;
    }
    this.unsubscribe = leadership.onChange((change) => this.enqueue(change.leader));
    if (leadership.isLeader) this.enqueue(true);
  }

  /** Stops the work and stops listening; resolves once every runnable has stopped. */
  async stop(): Promise<void> {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.enqueue(false);
  }

  private enqueue(run: boolean): Promise<void> {
    this.queue = this.queue.then(() => (run ? this.startAll() : this.stopAll()));
    return this.queue;
  }

  private startAll(): void {
    if (this.active || !this.started) return;
    this.active = true;
    for (const runnable of this.runnables) {
      try {
        runnable.start();
      } catch (error) {
        this.deps.logger.error(
          { err: String(error), runnable: runnable.name },
          "leader-only work did not start",
        );
      }
    }
    this.deps.logger.info({ runnables: this.runnables.map((r) => r.name) }, "leader-only work started");
  }

  private async stopAll(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    await Promise.all(
      this.runnables.map(async (runnable) => {
        try {
          await runnable.stop();
        } catch (error) {
          this.deps.logger.error(
            { err: String(error), runnable: runnable.name },
            "leader-only work did not stop cleanly",
          );
        }
      }),
    );
    this.deps.logger.info({}, "leader-only work stopped");
  }
}
