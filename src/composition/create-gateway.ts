import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";
import { NodeHasher } from "../adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../adapters/system/node-ids.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { SubprocessUpstreamFactory } from "../adapters/upstream/subprocess/subprocess-upstream-factory.js";
import { EventBus } from "../app/event-bus.js";
import { Fleet } from "../app/fleet/fleet.js";
import { ToolInvoker } from "../app/fleet/tool-invoker.js";
import type { Logger } from "../app/ports/logger.js";
import type { AppServices } from "../app/services.js";
import type { GatewayConfig } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import { AutoRecovery } from "../control/auto-recovery.js";
import { healthChecker } from "../control/health-checker.js";
import { idleReaper } from "../control/idle-reaper.js";
import type { Periodic } from "../control/periodic.js";
import { buildHttpApp } from "../edges/http/build-app.js";
import { McpHttpEndpoint } from "../edges/mcp/http-endpoint.js";
import { specFromEntry } from "./server-specs.js";
import { VERSION } from "./version.js";

/** Spawn + initialize + tools/list of one start; generous for `npx`-launched servers. */
const START_TIMEOUT_MS = 30_000;
/** Decisions "Lifecycle details": a health check is `tools/list` with a 5 s timeout. */
const HEALTH_CHECK_TIMEOUT_MS = 5_000;

export interface GatewayOptions {
  config: GatewayConfig;
  logger: Logger;
  /** Instance label; defaults to the host name. */
  instanceLabel?: string;
}

/** A wired gateway: the application services, its HTTP edge on demand, and its background loops. */
export interface Gateway {
  readonly services: AppServices;
  /** Builds the HTTP application (REST, health, `/mcp`); never listens. */
  http(): Promise<FastifyInstance>;
  /** Starts the idle reaper, the health checker and crash recovery. */
  startBackground(): void;
  /** Stops loops and MCP sessions, then every child server. Idempotent. */
  shutdown(): Promise<void>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const { config, logger } = options;
  const clock = new SystemClock();
  const ids = new NodeIdGenerator();
  const hasher = new NodeHasher();
  const instanceId = `${options.instanceLabel ?? hostname()}-${ids.hex(4)}`;
  const bus = new EventBus({ clock, ids, logger, instanceId });
  const fleet = new Fleet({
    factories: {
      subprocess: new SubprocessUpstreamFactory({ clientInfo: { name: "airlock", version: VERSION } }),
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
    limits: {
      maxConcurrency: config.execution.max_concurrency,
      maxResponseBytes: config.execution.max_response_bytes,
    },
  });

  const declared = new Set<string>();
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (isGroupEntry(entry)) {
      logger.warn({ group_id: id }, "groups are not served by this release; the entry is ignored");
      continue;
    }
    fleet.register(specFromEntry(id, entry));
    declared.add(id);
  }

  const services: AppServices = {
    fleet,
    invoker,
    bus,
    clock,
    ids,
    hasher,
    logger,
    instance: {
      instance_id: instanceId,
      version: VERSION,
      started_at: clock.now(),
      started_mono: clock.monotonic(),
      coordinates_with_peers: false,
      manages_fleet: true,
      storage_is_shareable: false,
      rate_limits_are_per_instance: true,
    },
    settings: {
      topology: config.tool_access.mode,
      declaredServerIds: declared,
      authEnabled: config.auth.enabled,
      rateLimit: {
        rps: config.rate_limit.rps,
        burst: config.rate_limit.burst,
        perCaller: config.rate_limit.per_caller !== undefined,
      },
    },
  };

  const loops: Periodic[] = [idleReaper(fleet, logger), healthChecker(fleet, clock, logger)];
  const recovery = new AutoRecovery({ fleet, bus, logger });
  let endpoint: McpHttpEndpoint | null = null;
  let shuttingDown: Promise<void> | null = null;

  return {
    services,
    async http() {
      endpoint ??= new McpHttpEndpoint(services);
      const mcp = endpoint;
      return buildHttpApp(services, { mountMcp: (app) => mcp.mount(app) });
    },
    startBackground() {
      for (const loop of loops) loop.start();
      recovery.start();
    },
    shutdown() {
      shuttingDown ??= (async () => {
        recovery.stop();
        await Promise.all(loops.map((loop) => loop.stop()));
        await endpoint?.close();
        await fleet.shutdown();
      })();
      return shuttingDown;
    },
  };
}
