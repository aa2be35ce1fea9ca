import type { PromGatewayMetrics } from "../adapters/observability/metrics.js";
import type { AppServices } from "../app/services.js";
import type { GatewayConfig } from "../config/schema.js";
import { healthChecker } from "../control/health-checker.js";
import { MetricSampler } from "../control/metrics-sampler.js";
import type { Periodic } from "../control/periodic.js";
import type { Coordination } from "./coordination.js";
import type { PinsWiring } from "./digest-pins.js";
import type { Storage } from "./open-storage.js";
import { openReplication } from "./replication.js";

/**
 * The loops every replica runs for itself (leader-only work is in `coordination`): the health
 * checker, the digest pins' re-check, the metric history sampler and, when replicas share an event
 * log, the replication of peers' events. Built, not started: `Gateway.startBackground` starts
 * them. Also hands the metrics the leadership and replication lag they report.
 */
export async function openLoops(
  config: GatewayConfig,
  deps: {
    storage: Storage;
    services: AppServices;
    pinning: PinsWiring;
    coordination: Coordination;
    instanceId: string;
    metrics: PromGatewayMetrics;
  },
): Promise<Periodic[]> {
  const { fleet, groups, governance, bus, clock, logger } = deps.services;
  const loops: Periodic[] = [healthChecker(fleet, clock, logger)];
  if (deps.pinning.recheck) loops.push(deps.pinning.recheck);
  // This replica's calls into the shared metric history (`GET /api/observability/metrics/history`).
  const sampling = config.observability.metrics_history;
  if (sampling.enabled) {
    const sampler = new MetricSampler({
      metrics: deps.metrics,
      history: deps.services.repositories.metricHistory,
      clock,
      logger,
      replica: deps.instanceId,
      intervalMs: sampling.interval_s * 1000,
      retentionMs: sampling.retention_h * 3_600_000,
    });
    loops.push(sampler.loop());
  }
  // Peers' events on this replica's WebSocket stream (multi-replica on PostgreSQL only).
  const replication = await openReplication(config, deps.storage, {
    bus,
    fleet,
    groups,
    governance,
    instanceId: deps.instanceId,
    logger,
    clock,
  });
  if (replication) loops.push(replication.loop);
  const { elector } = deps.coordination;
  deps.metrics.trackCoordination({
    ...(elector && { leadership: elector }),
    ...(replication && { replicationLagSeconds: replication.lagSeconds }),
  });
  return loops;
}
