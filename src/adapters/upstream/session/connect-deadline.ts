import type { ConnectOptions } from "../../../app/ports/upstream.js";

/** Why a connect failed when its signal aborted: the server was stopped meanwhile. */
export const ABANDONED_MESSAGE = "start abandoned: the server was stopped";

/**
 * The bound of one connect attempt: `options.timeoutMs`, or `options.signal`, whichever comes first.
 *
 * `race(work)` rejects as soon as either happens (`timedOut` and `abandoned` then say which) and
 * `signal` aborts with it, for the requests made along the way. Call `dispose()` once the attempt
 * settled: the timer and the listener on the caller's signal go, and the deadline never fires after.
 */
export class ConnectDeadline {
  private readonly controller = new AbortController();
  private readonly reached: Promise<never>;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;
  private outcome: "timeout" | "abandoned" | undefined;

  constructor(private readonly options: ConnectOptions) {
    let reject: (error: Error) => void = () => {};
    this.reached = new Promise<never>((_, rejectReached) => {
      reject = rejectReached;
    });
    // Only raced against; a rejection nobody awaits any more must not surface as unhandled.
    this.reached.catch(() => {});
    const stop = (outcome: "timeout" | "abandoned") => {
      if (this.outcome !== undefined) return;
      this.outcome = outcome;
      this.controller.abort();
      reject(new Error(outcome));
    };
    this.timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    this.onAbort = () => stop("abandoned");
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Aborted once the deadline passed or the attempt was abandoned. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.outcome === "timeout";
  }

  get abandoned(): boolean {
    return this.outcome === "abandoned";
  }

  /** `work`, unless the deadline comes first. */
  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.reached]);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.options.signal?.removeEventListener("abort", this.onAbort);
  }
}
