import type { Fleet } from "../app/fleet/fleet.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";

/** One-second granularity: `idle_ttl_s` starts at 1 s, and a pass over the fleet costs microseconds. */
const REAP_INTERVAL_MS = 1000;

/** Stops ready servers unused for their `idle_ttl_s` (stop reason `idle`). */
export function idleReaper(fleet: Fleet, logger: Logger): Periodic {
  return new Periodic(
    REAP_INTERVAL_MS,
    async () => {
      const stopped = await fleet.reapIdle();
      for (const id of stopped) logger.info({ mcp_server_id: id }, "stopped idle MCP server");
    },
    (error) => logger.error({ err: String(error) }, "idle reaper failed"),
  );
}
