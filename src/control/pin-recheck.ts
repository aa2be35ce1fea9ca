import type { Fleet } from "../app/fleet/fleet.js";
import type { ManagedServer } from "../app/fleet/managed-server.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";

/**
 * Re-lists every ready pinned server every `tool_projection.pin_recheck_interval_s` seconds (spec 2
 * "Digest pinning"), so a drifted tool is refused from the next call even when nothing else lists
 * it. The listing is the health check's `tools/list` (its 5 s timeout, its outcome counted like a
 * health check); the pins compare what it returns. Cold, starting, degraded and dead servers are
 * neither listed nor started. Servers are re-listed concurrently; a pass that outlasts the interval
 * delays the next one rather than overlapping it.
 */
export function pinRecheck(
  pins: { pinnedServers(): ManagedServer[] },
  fleet: Fleet,
  intervalS: number,
  logger: Logger,
): Periodic {
  return new Periodic(
    intervalS * 1000,
    async () => {
      const due = pins
        .pinnedServers()
        .filter((server) => server.lifecycle.state === "ready" && server.connection !== null);
      await Promise.all(
        due.map(async (server) => {
          if (!(await fleet.checkHealth(server)))
            logger.warn({ mcp_server_id: server.id }, "pin re-check could not list the tools");
        }),
      );
    },
    (error) => logger.error({ err: String(error) }, "pin re-check failed"),
  );
}
