import type { Logger } from "../app/ports/logger.js";

/**
 * The longest one close may take before the next one runs. Longer than the bounds the closes keep
 * themselves (the event store gives up flushing after 10 s, a child process is killed within 9 s,
 * a container is stopped and removed within about 25 s), so it only ever cuts short a close that
 * hangs, which would otherwise keep the process up forever.
 */
export const DEFAULT_CLOSE_BOUND_MS = 30_000;

/** How to release one thing the gateway opened. */
export type Close = () => unknown;

interface Entry {
  readonly name: string;
  readonly close: Close;
}

/**
 * The one close-order registry of a gateway. Whatever composition opens (a store, a pool, a child
 * process's fleet, a recorder, a timer loop) is registered here right after it opened; `closeAll`
 * closes in the reverse order, so nothing is closed while something opened after it (and that may
 * use it) still runs.
 *
 * Guaranteed: each close runs once, in reverse order of registration; a close that throws or
 * rejects is logged and the next one still runs; a close that takes longer than its bound is logged
 * and left behind, and the next one runs. `closeAll` never rejects and is idempotent. What is
 * registered once `closeAll` began is closed at once (bounded, failures logged).
 * Not guaranteed: that a close left behind at its bound ever ends.
 */
export class Closers {
  private readonly entries: Entry[] = [];
  private closing: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly boundMs = DEFAULT_CLOSE_BOUND_MS,
  ) {}

  /** Registers what just opened; `name` names it in the log (`storage`, `fleet`, ...). */
  opened(name: string, close: Close): void {
    const entry = { name, close };
    if (this.closing) {
      void this.closeOne(entry);
      return;
    }
    this.entries.push(entry);
  }

  /** Closes everything registered, last opened first. */
  closeAll(): Promise<void> {
    this.closing ??= (async () => {
      for (let entry = this.entries.pop(); entry; entry = this.entries.pop()) await this.closeOne(entry);
    })();
    return this.closing;
  }

  private async closeOne({ name, close }: Entry): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.boundMs);
      // A close left behind must not keep the process up either.
      timer.unref();
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(close), late]);
      if (outcome === "late") {
        this.logger.error({ resource: name, bound_ms: this.boundMs }, `${name} did not close in time`);
      } else {
        this.logger.debug({ resource: name }, `${name} closed`);
      }
    } catch (error) {
      this.logger.error({ resource: name, err: String(error) }, `${name} did not close cleanly`);
    } finally {
      clearTimeout(timer);
    }
  }
}
