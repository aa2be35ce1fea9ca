import type { DiscoveryService } from "../app/discovery/discovery-service.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";
import type { Runnable } from "./supervisor.js";

/**
 * The discovery cycle as leader-only work: a first cycle at once, then one every
 * `refresh_interval_s`, plus an early (debounced) one whenever a source's change feed fires. Does
 * nothing while `discovery.enabled` is false.
 *
 * With coordination, stopping (leadership lost) also removes the servers the discovery registered
 * on this replica and clears its state: the next fleet manager finds them again with its first
 * cycle, so two replicas never both manage a discovered server.
 */
export function discoveryCycle(
  discovery: DiscoveryService,
  logger: Logger,
  options: { coordinated: boolean },
): Runnable {
  const report = (error: unknown) => logger.warn({ err: String(error) }, "discovery cycle failed");
  const periodic = new Periodic(discovery.refreshIntervalMs, () => discovery.runCycle(), report);
  let first: Promise<unknown> = Promise.resolve();
  return {
    name: "discovery-cycle",
    start() {
      if (!discovery.enabled) return;
      first = discovery.runCycle().catch(report);
      periodic.start();
      discovery.watch();
    },
    async stop() {
      await periodic.stop();
      await first;
      await discovery.unwatch(options.coordinated);
    },
  };
}
