import { killAllProcessGroups } from "../adapters/upstream/subprocess/process-groups.js";

const SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * Shutdown signals, handled from the first moment of `serve`: the first SIGTERM or SIGINT resolves
 * `received` (orderly shutdown); a second one kills every child process group and exits 1 at once.
 * Installed before anything is started, so no signal can take the default action (death without
 * cleanup) while children exist.
 */
export class ShutdownSignals {
  readonly received: Promise<NodeJS.Signals>;
  private count = 0;
  private resolve: (signal: NodeJS.Signals) => void = () => {};
  private readonly handler = (signal: NodeJS.Signals) => {
    this.count++;
    if (this.count === 1) return this.resolve(signal);
    killAllProcessGroups();
    process.exit(1);
  };

  /** `early`: signals received before this was installed (while the code loaded), handled now. */
  constructor(early: readonly NodeJS.Signals[] = []) {
    this.received = new Promise((resolve) => {
      this.resolve = resolve;
    });
    for (const signal of SIGNALS) process.on(signal, this.handler);
    for (const signal of early) this.handler(signal);
  }

  get triggered(): boolean {
    return this.count > 0;
  }

  dispose(): void {
    for (const signal of SIGNALS) process.off(signal, this.handler);
  }
}

/**
 * SIGHUP reloads the configuration (spec 2 §3). The handler only asks; the reload itself logs and
 * publishes its outcome, so a refused one leaves the process serving as before.
 */
export function onReloadSignal(reload: () => Promise<unknown>): () => void {
  const handler = () => {
    void reload().catch(() => undefined);
  };
  process.on("SIGHUP", handler);
  return () => {
    process.off("SIGHUP", handler);
  };
}
