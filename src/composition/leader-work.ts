import { hostname } from "node:os";
import { OPERATIONS_BY_NAME } from "../app/catalog.js";
import type { DiscoverySourceFactory } from "../app/discovery/discovery-deps.js";
import type { EventBus } from "../app/event-bus.js";
import type { Clock } from "../app/ports/clock.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { AppServices } from "../app/services.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import { AutoRecovery } from "../control/auto-recovery.js";
import { idleReaper } from "../control/idle-reaper.js";
import { type Coordination, createCoordination } from "./coordination.js";
import { createDiscovery, type Discovery, discoveryAdapters } from "./discovery.js";
import type { OpenedFleet } from "./open-fleet.js";
import type { Storage } from "./open-storage.js";

/**
 * The management lease (with `coordination`) and the work only its holder does: the idle reaper,
 * crash recovery, `auto_start` groups and the discovery cycle, whose service is built here too
 * (its operations run on the fleet manager). Built, not started: nothing runs and nothing is held
 * until `Gateway.startBackground`, which registers `coordination.stop` for the shutdown.
 */
export function createLeaderWork(
  config: GatewayConfig,
  deps: {
    env: EnvSettings;
    storage: Storage;
    fleet: OpenedFleet;
    bus: EventBus;
    clock: Clock;
    hasher: Hasher;
    ids: IdGenerator;
    logger: Logger;
    instanceId: string;
    /** Builds the adapters of `discovery.sources`; default: the Docker, Kubernetes, filesystem and entrypoint adapters. */
    discoverySources: DiscoverySourceFactory | undefined;
    /** The services forwarded commands run with; built after this. */
    services: () => AppServices;
  },
): { discovery: Discovery; coordination: Coordination } {
  const { storage, bus, clock, hasher, ids, logger } = deps;
  const { fleet, groups } = deps.fleet;
  const discovery = createDiscovery(config, {
    fleet,
    groups,
    bus,
    clock,
    hasher,
    ids,
    logger,
    remote: deps.fleet.remote,
    serverConfigs: storage.repositories.serverConfigs,
    rejections: storage.repositories.discoveryRejections,
    coordinated: config.coordination !== undefined && config.coordination !== null,
    sourceFactory: deps.discoverySources ?? discoveryAdapters(deps.env),
  });
  const coordination = createCoordination(config, {
    storage,
    clock,
    logger,
    ids,
    instanceId: deps.instanceId,
    host: hostname(),
    work: {
      fleet,
      groups,
      idleReaper: idleReaper(fleet, logger),
      recovery: new AutoRecovery({ fleet, bus, logger }),
      logger,
      runnables: [discovery.runnable],
    },
    operations: OPERATIONS_BY_NAME,
    services: deps.services,
  });
  return { discovery, coordination };
}
