import type { Clock } from "../app/ports/clock.js";
import type { StoreAvailability } from "../app/ports/store-availability.js";
import type { ReadinessCheck } from "../edges/http/routes/health.js";

/**
 * `/health/ready` answers 503 once the shared store has been unreachable for longer than
 * `persistence.readiness_grace_s`, and 200 again as soon as a query or probe reaches it. While it
 * is unreachable the body says so under `persistence`, within the grace too.
 */
export function storeReadiness(
  availability: StoreAvailability,
  graceS: number,
  clock: Clock,
): ReadinessCheck {
  return {
    name: "persistence",
    check() {
      const since = availability.unreachableSince();
      if (since === null) return { ready: true };
      const downS = (clock.monotonic() - since) / 1000;
      const ready = downS <= graceS;
      return {
        ready,
        detail: {
          status: ready ? "degraded" : "unhealthy",
          store: availability.description,
          reachable: false,
          unreachable_for_s: Math.round(downS * 10) / 10,
          readiness_grace_s: graceS,
        },
      };
    },
  };
}
