import { DnsEndpointGuard } from "../adapters/net/dns-endpoint-guard.js";
import { RemoteUpstreamFactory } from "../adapters/upstream/remote/remote-upstream-factory.js";
import { SubprocessUpstreamFactory } from "../adapters/upstream/subprocess/subprocess-upstream-factory.js";
import type { EventBus } from "../app/event-bus.js";
import { Fleet } from "../app/fleet/fleet.js";
import { StderrForwarder } from "../app/fleet/stderr-forwarder.js";
import { ToolInvoker } from "../app/fleet/tool-invoker.js";
import { GroupService } from "../app/groups/group-service.js";
import type { Clock } from "../app/ports/clock.js";
import type { EndpointGuard } from "../app/ports/endpoint-guard.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { Logger } from "../app/ports/logger.js";
import type { UpstreamFactory } from "../app/ports/upstream.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import type { Closers } from "./closers.js";
import { RELAYED_CLIENT_CAPABILITIES } from "./front-door.js";
import { lazyHttpClientFactory, lazyUpstreamFactory } from "./lazy-adapters.js";
import { invokerLimits } from "./reload.js";
import { VERSION } from "./version.js";

/** How the gateway introduces itself to upstream servers in `initialize`. */
const CLIENT_INFO = { name: "airlock", version: VERSION };
/** On the front door it also declares what it relays to its clients (sampling, elicitation, roots). */
const FRONT_DOOR_CLIENT_INFO = { ...CLIENT_INFO, capabilities: RELAYED_CLIENT_CAPABILITIES };

/** Spawn + initialize + tools/list of one start; generous for `npx`-launched servers. */
const START_TIMEOUT_MS = 30_000;
/** Decisions "Lifecycle details": a health check is `tools/list` with a 5 s timeout. */
const HEALTH_CHECK_TIMEOUT_MS = 5_000;

export interface OpenedFleet {
  readonly fleet: Fleet;
  readonly invoker: ToolInvoker;
  readonly groups: GroupService;
  /** Connects `mode: remote` servers (discovery's probe of HTTP endpoints uses it too). */
  readonly remote: UpstreamFactory;
  /** The SSRF policy for endpoints registered through REST or hot-loaded. */
  readonly endpointGuard: EndpointGuard;
}

/**
 * The upstream factories (subprocess, docker and remote, the last two loaded with their first
 * server), the fleet that runs them, its tool invoker and the group service, following its
 * members' events from now on. Registered in `closers`: the fleet stops every server it started,
 * then containers a crash left behind are removed; the groups stop following events first.
 * Nothing is started here.
 */
export function openFleet(
  config: GatewayConfig,
  env: EnvSettings,
  deps: { bus: EventBus; clock: Clock; hasher: Hasher; logger: Logger },
  closers: Closers,
): OpenedFleet {
  const { bus, clock, hasher, logger } = deps;
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
    stderrForwarder: config.logging.forward_server_stderr
      ? new StderrForwarder({ logger, clock, json: config.logging.json_format })
      : undefined,
  });
  // Registered before the fleet's own close, so it runs after it.
  closers.opened("leftover containers", () => removeLeftoverContainers(fleet, env, logger));
  closers.opened("fleet", () => fleet.shutdown());
  const invoker = new ToolInvoker({ fleet, bus, clock, limits: invokerLimits(config) });
  const groups = new GroupService({ fleet, bus, logger, random: Math.random });
  // Groups follow their members' health and lifecycle from the first event on.
  groups.start();
  closers.opened("groups", () => groups.stop());
  return { fleet, invoker, groups, remote, endpointGuard };
}

/**
 * Containers a crash left behind, or created by an attempt the shutdown abandoned; the engine is
 * only asked when the fleet has container servers.
 */
async function removeLeftoverContainers(fleet: Fleet, env: EnvSettings, logger: Logger): Promise<void> {
  if (!fleet.list().some((server) => server.spec.mode === "docker")) return;
  const { removeProcessContainers } = await import("../adapters/upstream/docker/container-registry.js");
  const leftovers = await removeProcessContainers(env.containerEndpoint);
  if (leftovers.failed.length > 0)
    logger.warn({ containers: leftovers.failed }, "could not remove containers");
}
