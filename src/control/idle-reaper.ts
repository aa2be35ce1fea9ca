import type { Fleet } from "../app/fleet/fleet.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";

/** One-second granularity: `idle_ttl_s` starts at 1 s, and a pass over the fleet costs microseconds. */
const REAP_INTERVAL_MS = 1000;

/** Stops ready servers unused for their `idle_ttl_s` (stop reason `idle`). */
export function idleReaper(fleet: Fleet, logger: Logger): Periodic {
  return new Periodic(
    REAP_INTERVAL_MS,
    // Each stop is logged as `MCP server stopped` (reason `idle`) from the event it records.
    async () => {
      await fleet.reapIdle();
    },
    (error) => logger.error({ err: String(error) }, "idle reaper failed"),
  );
}
