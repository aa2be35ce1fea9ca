import type { FastifyInstance } from "fastify";
import type { HealthRouteServices } from "../../../app/edge-services.js";

/** What decides readiness besides the fleet (event store degraded, catalogue not projected, ...). */
export interface ReadinessCheck {
  name: string;
  check(): { ready: boolean; detail?: Record<string, unknown> };
}

/**
 * Probes, outside `/api` as orchestrators expect them (and mirrored under `/api/health`).
 * Readiness never waits for a warm server: a fleet of cold servers is ready to serve.
 */
export function healthRoutes(
  app: FastifyInstance,
  services: HealthRouteServices,
  checks: readonly ReadinessCheck[],
): void {
  app.get("/health/live", async () => ({ status: "healthy" }));
  app.get("/health/ready", async (_request, reply) => {
    const servers = services.fleet.readiness();
    const body: Record<string, unknown> = {
      status: "healthy",
      ready_mcp_servers: servers.ready,
      total_mcp_servers: servers.total,
    };
    let ready = true;
    for (const check of checks) {
      const result = check.check();
      if (!result.ready) ready = false;
      if (result.detail) body[check.name] = result.detail;
    }
    if (!ready) body.status = "unhealthy";
    return reply.status(ready ? 200 : 503).send(body);
  });
}
