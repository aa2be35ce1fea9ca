/**
 * Signals that follow one parent signal: each aborts, with the parent's reason, when the parent
 * does. The parent carries a single listener for all of them, taken off by {@link release}.
 *
 * Why: every request in flight listens to its signal until it ends, and an `AbortSignal` warns of a
 * leak past 10 listeners. A batch gives each of its workers (up to 50 at once) a follower of the
 * caller's signal, so no signal ever holds more than a worker's one request, without raising any
 * limit (which would need `node:events`, not imported by `app`).
 */
export class SignalFollowers {
  private readonly controllers: AbortController[] = [];
  private readonly onAbort = () => {
    for (const controller of this.controllers) controller.abort(this.parent?.reason);
  };

  constructor(private readonly parent: AbortSignal | undefined) {
    if (parent && !parent.aborted) parent.addEventListener("abort", this.onAbort, { once: true });
  }

  /**
   * `ctx` with a signal of its own that follows the parent. `ctx` itself when there is no parent or
   * it has already aborted (nothing more can happen to it then).
   */
  follow<C extends { signal?: AbortSignal }>(ctx: C): C {
    if (!this.parent || this.parent.aborted) return ctx;
    const controller = new AbortController();
    this.controllers.push(controller);
    return { ...ctx, signal: controller.signal };
  }

  /** Takes the listener off the parent: from now on the followers no longer follow it. */
  release(): void {
    this.parent?.removeEventListener("abort", this.onAbort);
  }
}
