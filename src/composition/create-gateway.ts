import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";
import { parse as parseYaml } from "yaml";
import { createOpaPolicyEngine } from "../adapters/auth/opa-policy-engine.js";
import { DnsEndpointGuard } from "../adapters/net/dns-endpoint-guard.js";
import { FileConfigFiles } from "../adapters/system/file-config-files.js";
import { NodeHasher } from "../adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../adapters/system/node-ids.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { RemoteUpstreamFactory } from "../adapters/upstream/remote/remote-upstream-factory.js";
import { SubprocessUpstreamFactory } from "../adapters/upstream/subprocess/subprocess-upstream-factory.js";
import { AuditRecorder } from "../app/audit-recorder.js";
import { AccessEvents } from "../app/auth/access-events.js";
import { Authorizer } from "../app/auth/authorizer.js";
import { CachedApiKeyRepository } from "../app/auth/cached-api-keys.js";
import { OPERATIONS_BY_NAME } from "../app/catalog.js";
import { CommitBeforeAnswer } from "../app/commit-before-answer.js";
import { redactUrl } from "../app/config-state/redact-secrets.js";
import type { Principal } from "../app/context.js";
import type { DiscoverySourceFactory } from "../app/discovery/discovery-deps.js";
import { EgressPolicies } from "../app/egress/egress-policies.js";
import { EgressPolicyGate } from "../app/egress/egress-policy-gate.js";
import { EventBus } from "../app/event-bus.js";
import { recordEvents } from "../app/event-recorder.js";
import { Fleet } from "../app/fleet/fleet.js";
import { ToolInvoker } from "../app/fleet/tool-invoker.js";
import { GroupService } from "../app/groups/group-service.js";
import { CommandRateLimiter } from "../app/limits/command-rate-limiter.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { AppServices } from "../app/services.js";
import { type EnvSettings, resolveEnvConfigPath } from "../config/load.js";
import type { GatewayConfig, GroupEntry, ServerEntry } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import { AutoRecovery } from "../control/auto-recovery.js";
import { healthChecker } from "../control/health-checker.js";
import { idleReaper } from "../control/idle-reaper.js";
import type { Periodic } from "../control/periodic.js";
import type { ToolPolicy } from "../domain/policy/tool-policy.js";
import { buildHttpApp } from "../edges/http/build-app.js";
import { isLoopbackHost } from "../edges/http/origin-policy.js";
import type { ReadinessCheck } from "../edges/http/routes/health.js";
import { allowAnonymous } from "../edges/http/ws/handshake.js";
import { McpHttpEndpoint } from "../edges/mcp/http-endpoint.js";
import type { ServerStreamLimits } from "../edges/mcp/server-streams.js";
import { openAuthentication } from "./authentication.js";
import { createCallGates } from "./call-gates.js";
import { ConfigFileWatch } from "./config-watch.js";
import { createCoordination } from "./coordination.js";
import { createDigestPins } from "./digest-pins.js";
import { createDiscovery, discoveryAdapters } from "./discovery.js";
import { createFrontDoor, type FrontDoor, RELAYED_CLIENT_CAPABILITIES } from "./front-door.js";
import { openGovernance } from "./governance.js";
import { createHeaderExposure, refuseDeclaredExposure } from "./header-exposure.js";
import { createHotLoading } from "./hot-loading.js";
import { lazyHttpClientFactory, lazyUpstreamFactory } from "./lazy-adapters.js";
import { openAuditLogExport, openComplianceExport, openMetrics } from "./observability.js";
import { openApprovals } from "./open-approvals.js";
import { openContinuations } from "./open-continuations.js";
import { openStorage, type Storage } from "./open-storage.js";
import { describeProtectedResource, openTokenVerifier } from "./open-token-verifier.js";
import { FileConfigReloader, invokerLimits } from "./reload.js";
import { openReplication } from "./replication.js";
import { specFromEntry } from "./server-specs.js";
import { checkStartup } from "./startup-checks.js";
import { storeReadiness } from "./store-readiness.js";
import { openTracing } from "./tracing.js";
import { VERSION } from "./version.js";

/** How the gateway introduces itself to upstream servers in `initialize`. */
const CLIENT_INFO = { name: "airlock", version: VERSION };
/** On the front door it also declares what it relays to its clients (sampling, elicitation, roots). */
const FRONT_DOOR_CLIENT_INFO = { ...CLIENT_INFO, capabilities: RELAYED_CLIENT_CAPABILITIES };

/** Spawn + initialize + tools/list of one start; generous for `npx`-launched servers. */
const START_TIMEOUT_MS = 30_000;
/** Decisions "Lifecycle details": a health check is `tools/list` with a 5 s timeout. */
const HEALTH_CHECK_TIMEOUT_MS = 5_000;

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
  /**
   * Builds the HTTP application (REST, health, `/mcp`); never listens. `listen.host` is the address
   * it will listen on: on a loopback address the MCP endpoint refuses foreign Host headers.
   */
  http(listen?: { host?: string }): Promise<FastifyInstance>;
  /** The front-door topology's sessions and relay; null in egress. */
  readonly frontDoor: FrontDoor | null;
  /** Who a stdio client is (`auth.stdio.principal` with auth on); undefined: no identity. */
  readonly stdioPrincipal: Principal | undefined;
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
  /** Stops loops and MCP sessions, then every child server. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Opens storage, registers the declared servers and those registered earlier through REST, and
 * wires the application. Rejects when durable storage cannot open (unless memory fallback is on).
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, logger, env } = options;
  // Before anything opens: a declared tool that header_exposure refuses stops the start.
  refuseDeclaredExposure(config);
  const storage = options.storage ?? (await openStorage(config, logger));
  const clock = new SystemClock();
  // One cache of API-key lookups, shared by authentication and the revoke operation (which empties it).
  const repositories: StoreRepositories = {
    ...storage.repositories,
    apiKeys: new CachedApiKeyRepository(storage.repositories.apiKeys, clock),
  };
  const continuations = await openContinuations(config.truncation, { clock, logger }).catch(async (error) => {
    // The start is refused: storage opened here is released (storage passed in is the caller's).
    if (!options.storage) await storage.close();
    throw error;
  });
  const ids = new NodeIdGenerator();
  const hasher = new NodeHasher();
  const instanceId = `${options.instanceLabel ?? hostname()}-${ids.hex(4)}`;
  const bus = new EventBus({ clock, ids, logger, instanceId });
  const stopRecording = recordEvents(bus, storage.eventStore, logger);
  const audit = new AuditRecorder({ bus, audit: storage.repositories.audit, logger });
  audit.start();
  // An unwritable compliance output refuses the boot; what was opened here is released.
  const compliance = await openComplianceExport(env, { bus, clock, logger }).catch(async (error) => {
    stopRecording();
    await audit.stop();
    await continuations?.store.close();
    if (!options.storage) await storage.close();
    throw error;
  });
  const auditLogs = openAuditLogExport(config.observability, instanceId, { bus, clock, logger });
  const endpointGuard = new DnsEndpointGuard({ trustedNetworks: config.ssrf.trusted_networks });
  const clientInfo = config.tool_access.mode === "front_door" ? FRONT_DOOR_CLIENT_INFO : CLIENT_INFO;
  const remote = new RemoteUpstreamFactory({
    clientInfo,
    guard: endpointGuard,
    // undici loads with the first remote connection (see lazy-adapters.ts).
    http: lazyHttpClientFactory(async () => {
      const { UndiciHttpClientFactory } = await import("../adapters/net/undici-http-client-factory.js");
      return new UndiciHttpClientFactory({ guard: endpointGuard });
    }),
  });
  const fleet = new Fleet({
    factories: {
      subprocess: new SubprocessUpstreamFactory({ clientInfo, baseEnv: env.childBaseEnv }),
      // dockerode loads with the first container server's start (see lazy-adapters.ts).
      docker: lazyUpstreamFactory(async () => {
        const { DockerUpstreamFactory } = await import(
          "../adapters/upstream/docker/docker-upstream-factory.js"
        );
        return new DockerUpstreamFactory(env.containerEndpoint, {
          runtime: env.containerRuntime,
          clientInfo,
        });
      }),
      remote,
    },
    bus,
    clock,
    hasher,
    logger,
    random: Math.random,
    timings: { startTimeoutMs: START_TIMEOUT_MS, healthCheckTimeoutMs: HEALTH_CHECK_TIMEOUT_MS },
    defaultServerConcurrency: config.execution.default_mcp_server_concurrency,
  });
  const invoker = new ToolInvoker({
    fleet,
    bus,
    clock,
    limits: invokerLimits(config),
  });

  const declared = new Set<string>();
  // Blocks are permanent (spec 1 §3): a server registered under a blocked id starts blocked.
  fleet.restoreBlocks((await storage.repositories.blockedServers.list()).map((b) => b.mcp_server_id));
  const groups = new GroupService({ fleet, bus, logger, random: Math.random });
  // Groups follow their members' health and lifecycle from the first event on.
  groups.start();
  const observed = openMetrics({ bus, fleet, groups });
  const tracing = await openTracing(config.observability.tracing, logger);
  const groupEntries: [string, GroupEntry][] = [];
  const declaredServers: [string, ServerEntry][] = [];
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (isGroupEntry(entry)) {
      groupEntries.push([id, entry]);
      // Inline members are servers of their own, declared by the file like any other.
      for (const member of entry.members)
        if (member.kind === "inline") declaredServers.push([member.id, member.server]);
    } else {
      declaredServers.push([id, entry]);
    }
  }
  for (const [id, entry] of declaredServers) {
    const spec = specFromEntry(id, entry, options.configDir);
    if (spec.endpoint) {
      // Spec 2 §2: a declared endpoint is trusted; say so once, so operators know the guard skips it
      // (a warning: it must show at the usual levels), without the URL's secrets.
      logger.warn(
        { mcp_server_id: id, endpoint: redactUrl(spec.endpoint) },
        "trusted endpoint from configuration: SSRF policy not applied",
      );
    }
    fleet.register(spec);
    declared.add(id);
  }
  for (const [id, entry] of groupEntries) {
    const memberPolicies = new Map<string, ToolPolicy>();
    for (const member of entry.members) {
      if (member.kind === "reference" && member.tools)
        memberPolicies.set(member.id, member.tools as ToolPolicy);
    }
    groups.register({ group_id: id, ...entry }, "config", entry.auto_start, {
      ...(entry.tools && { group: entry.tools as ToolPolicy }),
      members: memberPolicies,
    });
    declared.add(id);
  }
  for (const record of await storage.repositories.serverConfigs.list()) {
    if (fleet.has(record.id)) {
      logger.warn(
        { mcp_server_id: record.id },
        "a server registered through REST has the id of a declared one; kept the declared one",
      );
      continue;
    }
    // Discovered servers keep their provenance (exempt from the SSRF guard, taken over by the cycle).
    fleet.register({ ...record.spec, source: record.spec.source === "discovery" ? "discovery" : "api" });
  }
  for (const definition of await storage.repositories.groupConfigs.list()) {
    if (groups.has(definition.group_id) || fleet.has(definition.group_id)) {
      logger.warn(
        { group_id: definition.group_id },
        "a group created through REST has the id of a declared one; kept the declared one",
      );
      continue;
    }
    groups.register(definition, "api", false);
  }

  // Pins compare every listing from the first start on, so they watch before anything starts.
  const pinning = createDigestPins(config, { fleet, groups, bus, logger });
  pinning.watch();
  const headerExposure = createHeaderExposure(config, { groups, logger });

  // Authentication and authorization outcomes as events, when authentication is on (spec 2 §6).
  const accessEvents = config.auth.enabled ? new AccessEvents({ bus, clock }) : undefined;
  const authorizer = new Authorizer({
    repositories: storage.repositories,
    staticAssignments: config.auth.role_assignments,
    policyEngine: config.auth.enabled ? createOpaPolicyEngine(config.auth.opa, logger) : null,
    clock,
    logger,
  });
  const governance = await openGovernance(config, { repositories: storage.repositories, clock, logger });
  const egressPolicies = new EgressPolicies({
    repository: storage.repositories.l7Policies,
    hasher,
    clock,
    logger,
  });
  await egressPolicies.load();
  const egressPolicy = new EgressPolicyGate({
    policies: egressPolicies,
    fleet,
    bus,
    // Read at each hold, from the services built below.
    approvals: () => services.approvals,
  });
  const approvals = await openApprovals(config, {
    environment: options.environment ?? env.variables,
    repositories: storage.repositories,
    bus,
    clock,
    ids,
    hasher,
    logger,
    services: () => services,
  });
  const refused = checkStartup(config, approvals, logger);
  if (refused) {
    await approvals?.close();
    await continuations?.store.close();
    if (!options.storage) await storage.close();
    throw refused;
  }
  const recovery = new AutoRecovery({ fleet, bus, logger });
  // The discovery cycle is leader-only work; its operations run on the fleet manager too.
  const discovery = createDiscovery(config, {
    fleet,
    groups,
    bus,
    clock,
    hasher,
    ids,
    logger,
    remote,
    serverConfigs: storage.repositories.serverConfigs,
    rejections: storage.repositories.discoveryRejections,
    coordinated: config.coordination !== undefined && config.coordination !== null,
    sourceFactory: options.discoverySources ?? discoveryAdapters(env),
  });
  const coordination = createCoordination(config, {
    storage,
    clock,
    logger,
    ids,
    instanceId,
    work: {
      fleet,
      groups,
      idleReaper: idleReaper(fleet, logger),
      recovery,
      logger,
      runnables: [discovery.runnable],
    },
    operations: OPERATIONS_BY_NAME,
    services: () => services,
  });
  const services: AppServices = {
    ...(approvals && { approvals: approvals.service }),
    ...(coordination.elector && { coordination: coordination.elector }),
    ...(coordination.leaderCommands && { leaderCommands: coordination.leaderCommands }),
    fleet,
    invoker,
    authorizer,
    ...(accessEvents && { accessEvents }),
    governance,
    callGates: createCallGates({
      governance,
      egressPolicy,
      digestPins: pinning.gate,
      headerExposure: headerExposure.gate(),
    }),
    egressPolicies,
    rateLimiter: new CommandRateLimiter({
      clock,
      settings: {
        allCallers: { rps: config.rate_limit.rps, burst: config.rate_limit.burst },
        perCaller: config.rate_limit.per_caller,
      },
    }),
    groups,
    pins: pinning.pins,
    headerExposure,
    hotLoading: createHotLoading({
      config,
      fleet,
      groups,
      endpointGuard,
      clock,
      logger,
      environment: options.environment ?? env.variables,
    }),
    discovery: discovery.service,
    endpointGuard,
    eventStore: storage.eventStore,
    // The memory store loses its events with the process anyway: nothing to wait for.
    ...(config.event_store.commit === "before_answer" &&
      storage.eventStore.durable && { commitBeforeAnswer: new CommitBeforeAnswer(storage.eventStore) }),
    repositories,
    continuations,
    bus,
    clock,
    ids,
    hasher,
    logger,
    instance: coordination.instance({
      instance_id: instanceId,
      version: VERSION,
      started_at: clock.now(),
      started_mono: clock.monotonic(),
    }),
    metrics: observed.metrics,
    tracer: tracing.tracer,
    ...(compliance && { complianceExport: compliance }),
    settings: {
      topology: config.tool_access.mode,
      declaredServerIds: declared,
      authEnabled: config.auth.enabled,
      allowAnonymous: config.auth.allow_anonymous,
      rateLimit: {
        rps: config.rate_limit.rps,
        burst: config.rate_limit.burst,
        perCaller: config.rate_limit.per_caller !== undefined,
      },
      paramHeadersRequired: config.headers.param_validation.required,
    },
  };

  const reloader = options.configPath
    ? new FileConfigReloader({
        path: options.configPath,
        current: {
          config,
          raw: "configRaw" in options ? options.configRaw : readRawConfig(options.configPath),
        },
        fleet,
        invoker,
        groups,
        governance,
        pins: pinning.pins,
        headerExposure,
        // Built below, once the services exist; read at each reload.
        frontDoor: () => frontDoor,
        settings: services.settings,
        declared,
        bus,
        clock,
        logger,
        ...(options.environment && { env: options.environment }),
      })
    : null;
  if (reloader) {
    services.reloader = reloader;
    services.runningConfig = reloader;
    services.configFiles = new FileConfigFiles(
      options.configFilesPath ?? resolveEnvConfigPath({ env: env.variables }),
    );
  }
  const configWatch =
    reloader && options.configPath
      ? ConfigFileWatch.create(options.configPath, config, reloader, logger)
      : null;

  // Every replica checks its own connections; leader-only work is in `coordination`.
  const loops: Periodic[] = [healthChecker(fleet, clock, logger)];
  if (pinning.recheck) loops.push(pinning.recheck);
  // Peers' events on this replica's WebSocket stream (multi-replica on PostgreSQL only).
  const replication = await openReplication(config, storage, {
    bus,
    fleet,
    groups,
    governance,
    instanceId,
    logger,
    clock,
  });
  if (replication) loops.push(replication.loop);
  observed.metrics.trackCoordination({
    ...(coordination.elector && { leadership: coordination.elector }),
    ...(replication && { replicationLagSeconds: replication.lagSeconds }),
  });
  const authentication = openAuthentication({
    config,
    env,
    repositories,
    authorizer,
    tokens: config.auth.enabled ? openTokenVerifier(config.auth.oidc, { clock, logger }) : null,
    ...(accessEvents && { accessEvents }),
    hasher,
    clock,
    logger,
  });
  const frontDoor = config.tool_access.mode === "front_door" ? createFrontDoor(services, config) : null;
  let endpoint: McpHttpEndpoint | null = null;
  let shuttingDown: Promise<void> | null = null;

  return {
    services,
    async http(listen = {}) {
      const browserGuard = {
        allowedOrigins: config.http.allowed_origins,
        loopbackOnly: listen.host === undefined || isLoopbackHost(listen.host),
      };
      endpoint ??= new McpHttpEndpoint(services, {
        ...browserGuard,
        ...(options.streamLimits && { streamLimits: options.streamLimits }),
        ...(frontDoor && { sessionServer: frontDoor.sessionServer, serverStream: true }),
        ...(authentication && { authentication: authentication.http }),
        sessions: storage.repositories.mcpSessions,
        sessionCaps: {
          maxSessions: config.http.mcp_sessions.max_sessions,
          perPrincipal: config.http.mcp_sessions.max_per_principal,
          perTenant: config.http.mcp_sessions.max_per_tenant,
        },
      });
      const mcp = endpoint;
      return buildHttpApp(services, {
        maxJsonDepth: config.http.max_json_depth,
        timeouts: {
          headersS: config.http.headers_timeout_s,
          requestS: config.http.request_timeout_s,
          keepAliveS: config.http.keep_alive_timeout_s,
        },
        mountMcp: (app) => mcp.mount(app),
        browserGuard,
        ...(authentication && {
          authentication: authentication.http,
          protectedResource: describeProtectedResource(config.auth.oidc),
        }),
        // With authentication off every caller is anonymous and may do everything (spec 2 §4).
        webSocket: {
          allowedOrigins: config.http.allowed_origins,
          apiKeyHeader: config.auth.api_key.header_name,
          authenticate: authentication?.streamAuthenticator ?? allowAnonymous,
          authorize: authentication?.streamAuthorizer ?? (() => ({ tenantScope: null })),
        },
        readinessChecks: [
          storageReadiness(storage, config),
          ...(storage.availability
            ? [storeReadiness(storage.availability, config.persistence.readiness_grace_s, clock)]
            : []),
          ...(frontDoor?.readiness ? [frontDoor.readiness] : []),
        ],
      });
    },
    frontDoor,
    stdioPrincipal: authentication?.stdioPrincipal,
    reloader,
    startBackground() {
      for (const loop of loops) loop.start();
      configWatch
        ?.start()
        .catch((error) => logger.warn({ err: String(error) }, "configuration file watch did not start"));
      frontDoor?.warm();
      // Idle reaper, crash recovery and `auto_start` groups: at once without coordination, on
      // election with it.
      coordination.start();
    },
    async releaseHeldCalls() {
      await approvals?.close();
    },
    shutdown() {
      shuttingDown ??= (async () => {
        // Leader-only work stops first, then the lease is released, so a peer takes over at once.
        await coordination.stop();
        await configWatch?.stop();
        groups.stop();
        await Promise.all(loops.map((loop) => loop.stop()));
        frontDoor?.close();
        await endpoint?.close();
        // Held calls are released (their approvals expire) while storage is still open.
        await approvals?.close();
        await authentication?.authenticator.close();
        await fleet.shutdown();
        await continuations?.store.close();
        // After the fleet: its last stop events are recorded, then flushed by the close.
        stopRecording();
        observed.stop();
        await audit.stop();
        await compliance?.stop();
        await auditLogs?.stop();
        // After the fleet: the spans of calls that ended while stopping are flushed too.
        await tracing.stop();
        try {
          await storage.close();
        } catch (error) {
          // Events that could not be written are counted in the message; shutting down goes on.
          logger.error({ err: String(error) }, "storage did not close cleanly");
        }
        // Containers a crash left behind, or created by an attempt the shutdown abandoned; the engine
        // is only asked when the fleet has container servers.
        if (fleet.list().some((server) => server.spec.mode === "docker")) {
          const { removeProcessContainers } = await import(
            "../adapters/upstream/docker/container-registry.js"
          );
          const leftovers = await removeProcessContainers(env.containerEndpoint);
          if (leftovers.failed.length > 0)
            logger.warn({ containers: leftovers.failed }, "could not remove containers");
        }
      })();
      return shuttingDown;
    },
  };
}

/** The configuration file as written (before defaults), for the reload diff's explicit-null rule. */
function readRawConfig(path: string): unknown {
  try {
    return parseYaml(readFileSync(path, "utf8"), { merge: true });
  } catch {
    // Read a moment ago by the loader; if it cannot be read now, explicit nulls are not told apart.
    return undefined;
  }
}

/** `/health/ready` answers 503 while durable storage degraded to memory (spec 2 §2 `event_store`). */
function storageReadiness(storage: Storage, config: GatewayConfig): ReadinessCheck {
  return {
    name: "event_store",
    check: () =>
      storage.degraded
        ? {
            ready: false,
            detail: {
              status: "unhealthy",
              configured_driver: config.event_store.driver,
              durable: false,
              detail: storage.degraded.reason,
            },
          }
        : { ready: true },
  };
}
