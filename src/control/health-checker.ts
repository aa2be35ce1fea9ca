import type { Fleet } from "../app/fleet/fleet.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import { Periodic } from "./periodic.js";

/** Granularity of the schedule; each server is checked every `health_check_interval_s` (>= 5 s). */
const TICK_MS = 1000;

/**
 * Checks every running server on its own `health_check_interval_s` (decisions: `tools/list` with a
 * 5 s timeout; ready and degraded servers with a live connection only). Checks of different servers
 * run concurrently; one server is never checked twice at once.
 */
export function healthChecker(fleet: Fleet, clock: Clock, logger: Logger): Periodic {
  const nextDue = new Map<string, number>();
  const inProgress = new Set<string>();
  return new Periodic(
    TICK_MS,
    async () => {
      const now = clock.monotonic();
      const due = fleet.list().filter((server) => {
        if (!server.connection || inProgress.has(server.id)) return false;
        if (server.lifecycle.state !== "ready" && server.lifecycle.state !== "degraded") return false;
        const at = nextDue.get(server.id);
        if (at === undefined) {
          nextDue.set(server.id, now + server.spec.health_check_interval_s * 1000);
          return false;
        }
        return now >= at;
      });
      for (const id of nextDue.keys()) if (!fleet.has(id)) nextDue.delete(id);
      // Not awaited together: a slow server must not delay the next tick's checks of others.
      for (const server of due) {
        inProgress.add(server.id);
        nextDue.set(server.id, now + server.spec.health_check_interval_s * 1000);
        void fleet
          .checkHealth(server)
          .then((ok) => {
            if (!ok) logger.warn({ mcp_server_id: server.id }, "health check failed");
          })
          .finally(() => inProgress.delete(server.id));
      }
    },
    (error) => logger.error({ err: String(error) }, "health checker failed"),
  );
}
