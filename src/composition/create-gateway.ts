import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";
import { PromTelemetryHealth } from "../adapters/observability/telemetry-health.js";
import { NodeHasher } from "../adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../adapters/system/node-ids.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { CachedApiKeyRepository } from "../app/auth/cached-api-keys.js";
import type { Principal } from "../app/context.js";
import type { DiscoverySourceFactory } from "../app/discovery/discovery-deps.js";
import { EventBus } from "../app/event-bus.js";
import { logLifecycle } from "../app/observability/lifecycle-log.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { AppServices } from "../app/services.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import type { ServerStreamLimits } from "../edges/mcp/server-streams.js";
import { assembleServices } from "./app-services.js";
import { openAuthentication } from "./authentication.js";
import { openLoops } from "./background-loops.js";
import { Closers } from "./closers.js";
import { type EdgeServices, edgeServices } from "./edge-services.js";
import { createFrontDoor, type FrontDoor } from "./front-door.js";
import { refuseDeclaredExposure } from "./header-exposure.js";
import { httpEdge } from "./http-edge.js";
import { createLeaderWork } from "./leader-work.js";
import { openMetrics } from "./observability.js";
import { openApprovals } from "./open-approvals.js";
import { openContinuations } from "./open-continuations.js";
import { openFleet } from "./open-fleet.js";
import { openPolicies } from "./open-policies.js";
import { openRecords } from "./open-records.js";
import { openStorage, type Storage } from "./open-storage.js";
import { openTokenVerifier } from "./open-token-verifier.js";
import { registerFleet } from "./register-fleet.js";
import type { FileConfigReloader } from "./reload.js";
import { checkStartup } from "./startup-checks.js";
import { openTracing, type Tracing } from "./tracing.js";
import { wireReload } from "./wire-reload.js";

export interface GatewayOptions {
  config: GatewayConfig;
  /** Settings read from the environment only (container engine endpoint, ...). */
  env: EnvSettings;
  logger: Logger;
  /** Directory of the configuration file: declared local servers run there. */
  configDir?: string;
  /**
   * The configuration file the process was started with: reloads read it again (SIGHUP,
   * `gateway_reload_config`, `POST /config/reload`, the file watch). Absent: no reload.
   */
  configPath?: string;
  /**
   * The values of `configPath` as written, before defaults, as the loader read them (for the reload
   * diff's explicit-null rule); read from the file again when absent.
   */
  configRaw?: unknown;
  /**
   * The file `POST /config/backup` and `GET /config/diff` act on; by default `MCP_CONFIG` of `env`,
   * else `config.yaml` in the working directory (spec 1 "Configuration"), never `configPath`.
   * Used only when the gateway was started from a file (`configPath`).
   */
  configFilesPath?: string;
  /** Storage already opened (tests); by default it is opened from the configuration. */
  storage?: Storage;
  /** Instance label; defaults to the host name. */
  instanceLabel?: string;
  /**
   * The environment hot-loaded packages take their declared variables from (secrets included);
   * defaults to the environment the settings were read from.
   */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Builds the adapters of `discovery.sources`; default: the Docker, Kubernetes, filesystem and entrypoint adapters. */
  discoverySources?: DiscoverySourceFactory;
  /** Caps, longest age and re-check interval of the front door's GET streams; spec 2 §8 by default (tests shorten them). */
  streamLimits?: ServerStreamLimits;
}

/** A wired gateway: the application services, its HTTP edge on demand, and its background loops. */
export interface Gateway {
  readonly services: AppServices;
  /** What the edges see of the services: the HTTP edge, both MCP surfaces and stdio are given this. */
  readonly edges: EdgeServices;
  /**
   * Builds the HTTP application (REST, health, `/mcp`); never listens. `listen.host` is the address
   * it will listen on: on a loopback address the MCP endpoint refuses foreign Host headers.
   */
  http(listen?: { host?: string }): Promise<FastifyInstance>;
  /** The front-door topology's sessions and relay; null in egress. */
  readonly frontDoor: FrontDoor | null;
  /** Who a stdio client is (`auth.stdio.principal` with auth on); undefined: no identity. */
  readonly stdioPrincipal: Principal | undefined;
  /** Where spans are exported (the start-up line names it); null when they are not. */
  readonly tracing: Tracing["exporting"];
  /** Reloads the configuration file; null when the gateway was not started from one. */
  readonly reloader: FileConfigReloader | null;
  /**
   * Starts the health checker and, on this replica alone or once it holds the management lease,
   * the idle reaper, crash recovery and `auto_start` groups.
   */
  startBackground(): void;
  /**
   * Refuses the calls held for a human decision, their approvals expired, and holds no more: the
   * first step of a shutdown, so that requests waiting on a hold end before the server drains
   * (they would otherwise keep it up until their own deadline). Idempotent; `shutdown` does it too.
   */
  releaseHeldCalls(): Promise<void>;
  /**
   * Closes everything the gateway opened, last opened first (`closers.ts`): leader-only work and the
   * lease, loops, MCP sessions, held calls, every child server, then the records and storage. A close
   * that fails or hangs is logged and the rest still close. Idempotent; never rejects.
   */
  shutdown(): Promise<void>;
}

/**
 * Opens storage, registers the declared servers and those registered earlier through REST, and
 * wires the application, one concern after the other. Everything opened is registered in one
 * close-order registry: a failure at any step closes what was opened so far, last opened first,
 * and rejects with that failure; `shutdown` closes the rest the same way. Rejects when durable
 * storage cannot open (unless memory fallback is on). Storage passed in stays the caller's until
 * the gateway has started; from then on `shutdown` closes it.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, logger } = options;
  // Before anything opens: a declared tool that header_exposure refuses stops the start.
  refuseDeclaredExposure(config);
  const closers = new Closers(logger);
  let ownsStorage = options.storage === undefined;
  const storage = options.storage ?? (await openStorage(config, logger));
  closers.opened("storage", () => (ownsStorage ? storage.close() : undefined));
  try {
    const gateway = await compose(options, storage, closers);
    ownsStorage = true;
    return gateway;
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

async function compose(options: GatewayOptions, storage: Storage, closers: Closers): Promise<Gateway> {
  const { config, logger, env } = options;
  const environment = options.environment ?? env.variables;
  const clock = new SystemClock();
  const ids = new NodeIdGenerator();
  const hasher = new NodeHasher();
  const instanceId = `${options.instanceLabel ?? hostname()}-${ids.hex(4)}`;
  // Opened before what it traces, so that it flushes after them: the spans of calls that ended
  // while stopping are exported too.
  // Counts failed telemetry exports and dropped spans; joins the metrics registry once it exists.
  const telemetryHealth = new PromTelemetryHealth();
  const tracing = await openTracing(config.observability.tracing, env.otel, {
    logger,
    health: telemetryHealth,
  });
  closers.opened("tracing", () => tracing.stop());
  const continuations = await openContinuations(config.truncation, { clock, logger });
  if (continuations) closers.opened("continuations", () => continuations.store.close());
  const bus = new EventBus({ clock, ids, logger, instanceId });
  const { compliance } = await openRecords(config, env, { storage, bus, clock, logger, instanceId }, closers);

  const fleet = openFleet(config, env, { bus, clock, hasher, logger }, closers);
  const observed = openMetrics({ bus, fleet: fleet.fleet, groups: fleet.groups, clock });
  telemetryHealth.register(observed.metrics.registry);
  closers.opened("metrics", observed.stop);
  const modeOf = (id: string) => fleet.fleet.get(id)?.spec.mode;
  closers.opened("lifecycle log", logLifecycle({ bus, logger, modeOf }));
  const declared = await registerFleet(config, {
    fleet: fleet.fleet,
    groups: fleet.groups,
    repositories: storage.repositories,
    logger,
    configDir: options.configDir,
  });
  const policies = await openPolicies(
    config,
    {
      repositories: storage.repositories,
      fleet: fleet.fleet,
      groups: fleet.groups,
      bus,
      clock,
      hasher,
      logger,
      // Read at each hold, from the services built below.
      approvals: () => services.approvals,
    },
    closers,
  );
  const approvals = await openApprovals(config, {
    environment,
    repositories: storage.repositories,
    bus,
    clock,
    ids,
    hasher,
    logger,
    services: () => services,
  });
  if (approvals) closers.opened("approvals", () => approvals.close());
  const refused = checkStartup(config, approvals, logger);
  if (refused) throw refused;

  const { discovery, coordination } = createLeaderWork(config, {
    env,
    storage,
    fleet,
    bus,
    clock,
    hasher,
    ids,
    logger,
    instanceId,
    discoverySources: options.discoverySources,
    services: () => services,
  });
  // One cache of API-key lookups, shared by authentication and the revoke operation (which empties it).
  const repositories: StoreRepositories = {
    ...storage.repositories,
    apiKeys: new CachedApiKeyRepository(storage.repositories.apiKeys, clock),
  };
  const services: AppServices = assembleServices(config, {
    storage,
    repositories,
    continuations,
    fleet,
    policies,
    approvals: approvals?.service,
    discovery: discovery.service,
    coordination,
    metrics: observed.metrics,
    tracer: tracing.tracer,
    compliance,
    declared,
    instanceId,
    environment,
    bus,
    clock,
    ids,
    hasher,
    logger,
  });
  const reload = wireReload(config, options, {
    env,
    services,
    fleet,
    policies,
    declared,
    // Built below, once the services exist; read at each reload.
    frontDoor: () => frontDoor,
  });
  const loops = await openLoops(config, {
    storage,
    services,
    pinning: policies.pinning,
    coordination,
    instanceId,
    metrics: observed.metrics,
  });
  const authentication = openAuthentication({
    config,
    env,
    repositories,
    tokens: config.auth.enabled ? openTokenVerifier(config.auth.oidc, { clock, logger }) : null,
    ...(policies.accessEvents && { accessEvents: policies.accessEvents }),
    hasher,
    ids,
    clock,
    logger,
  });
  if (authentication) closers.opened("authentication", () => authentication.authenticator.close());
  const edges = edgeServices(services);
  const frontDoor =
    config.tool_access.mode === "front_door" ? createFrontDoor(services, edges, config) : null;
  if (frontDoor) closers.opened("front door", () => frontDoor.close());
  let started = false;

  return {
    services,
    edges,
    http: httpEdge(
      config,
      {
        services: edges,
        storage,
        authentication,
        frontDoor,
        metrics: observed.metrics,
        ...(options.streamLimits && { streamLimits: options.streamLimits }),
        replicas: coordination.replicas,
      },
      closers,
    ),
    frontDoor,
    stdioPrincipal: authentication?.stdioPrincipal,
    tracing: tracing.exporting,
    reloader: reload.reloader,
    startBackground() {
      if (started) return;
      started = true;
      for (const loop of loops) loop.start();
      closers.opened("background loops", () => Promise.all(loops.map((loop) => loop.stop())));
      const { watch } = reload;
      if (watch) {
        watch
          .start()
          .catch((error) => logger.warn({ err: String(error) }, "configuration file watch did not start"));
        closers.opened("configuration file watch", () => watch.stop());
      }
      frontDoor?.warm();
      // Idle reaper, crash recovery and `auto_start` groups: at once without coordination, on
      // election with it. Closed first: leader-only work stops, then the lease is released, so a
      // peer takes over at once.
      coordination.start();
      closers.opened("coordination", () => coordination.stop());
    },
    async releaseHeldCalls() {
      await approvals?.close();
    },
    shutdown: () => closers.closeAll(),
  };
}
