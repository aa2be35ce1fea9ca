import { EntrypointDiscoverySource } from "../adapters/discovery/entrypoint/entrypoint-discovery-source.js";
import { FilesystemDiscoverySource } from "../adapters/discovery/filesystem/filesystem-discovery-source.js";
import type {
  ConfiguredSource,
  DefinitionCheck,
  DiscoverySourceFactory,
  EndpointProbe,
} from "../app/discovery/discovery-deps.js";
import { DiscoveryService } from "../app/discovery/discovery-service.js";
import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { Clock } from "../app/ports/clock.js";
import type { DiscoveryRejectionRepository } from "../app/ports/discovery-rejection-repository.js";
import type { DiscoverySource } from "../app/ports/discovery-source.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { ServerConfigRepository } from "../app/ports/server-config-repository.js";
import type { UpstreamFactory } from "../app/ports/upstream.js";
import type { EnvSettings } from "../config/env.js";
import { classifyIssues, formatPath } from "../config/issues.js";
import { mcpServersSchema } from "../config/schema/mcp-servers.js";
import type { GatewayConfig } from "../config/schema.js";
import { isServerEntry } from "../config/schema.js";
import { discoveryCycle } from "../control/discovery-cycle.js";
import type { Runnable } from "../control/supervisor.js";
import { validationError } from "../domain/errors.js";
import { lazyDiscoverySource } from "./lazy-adapters.js";
import { specFromEntry } from "./server-specs.js";

/** The MCP handshake of a discovered HTTP endpoint must complete within this. */
const PROBE_TIMEOUT_MS = 10_000;
/** Problems named in a refused definition's reason; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 3;

export interface DiscoveryWiring {
  fleet: Fleet;
  groups: GroupService;
  bus: EventBus;
  clock: Clock;
  hasher: Hasher;
  ids: IdGenerator;
  logger: Logger;
  /** Where discovered servers are kept, like REST-registered ones (peers and restarts find them). */
  serverConfigs: ServerConfigRepository;
  /** Where operators' rejections are kept (a restart or a new fleet manager honours them). */
  rejections: DiscoveryRejectionRepository;
  /** Connects `mode: remote` servers; the health probe of discovered HTTP endpoints uses it. */
  remote: UpstreamFactory;
  /** Whether leader-only work stops when the lease is lost (`coordination` configured). */
  coordinated: boolean;
  /**
   * Builds the adapter of one source type from its keys (the `discovery.sources` entry without
   * `type`, `mode` and `enabled`). Absent, or throwing for a type: the source is listed unhealthy
   * with the reason as its `error_message`.
   */
  sourceFactory?: DiscoverySourceFactory;
}

export interface Discovery {
  service: DiscoveryService;
  /** The cycle, leader-only work for `LeaderOnlyWork.runnables`. */
  runnable: Runnable;
}

/** The discovery service and its cycle from `discovery` (spec 3 "Discovery configuration and labels"). */
export function createDiscovery(config: GatewayConfig, wiring: DiscoveryWiring): Discovery {
  const settings = config.discovery;
  const sources: ConfiguredSource[] = settings.enabled
    ? settings.sources.map(({ type, mode, enabled, ...rest }) => ({
        type,
        mode,
        enabled,
        config: rest,
        source: buildSource(type, rest, wiring),
      }))
    : [];
  const service = new DiscoveryService({
    fleet: wiring.fleet,
    groups: wiring.groups,
    bus: wiring.bus,
    clock: wiring.clock,
    hasher: wiring.hasher,
    ids: wiring.ids,
    logger: wiring.logger,
    serverConfigs: wiring.serverConfigs,
    rejections: wiring.rejections,
    check: checkDefinition,
    probe: probeThrough(wiring.remote),
    sources,
    ...(wiring.sourceFactory && { sourceFactory: wiring.sourceFactory }),
    settings: {
      enabled: settings.enabled,
      refreshIntervalS: settings.refresh_interval_s,
      autoRegister: settings.auto_register,
      quarantineOnFailure: settings.quarantine_on_failure,
      maxServersPerSource: settings.max_servers_per_source,
      maxRegistrationsPerMinute: settings.max_registrations_per_minute,
    },
  });
  return { service, runnable: discoveryCycle(service, wiring.logger, { coordinated: wiring.coordinated }) };
}

function buildSource(
  type: ConfiguredSource["type"],
  keys: Record<string, unknown>,
  wiring: DiscoveryWiring,
): DiscoverySource {
  try {
    if (wiring.sourceFactory) return wiring.sourceFactory(type, keys);
  } catch (error) {
    return unreadable(type, error instanceof Error ? error.message : String(error));
  }
  return unreadable(type, `no ${type} discovery adapter is available in this build`);
}

/** A source that cannot be built: every scan fails with the reason, so the listing shows it. */
function unreadable(type: ConfiguredSource["type"], reason: string): DiscoverySource {
  return {
    type,
    async scan() {
      throw new Error(reason);
    },
  };
}

/**
 * The configuration file's own reading of `mcp_servers.<name>`: the same schema and defaults, strict
 * (an unknown or misplaced key refuses the definition rather than being dropped).
 */
export const checkDefinition: DefinitionCheck = (name, definition) => {
  if (definition.mode === "group") {
    return { ok: false, problem: "mode: must not be group (discovery registers servers only)" };
  }
  const parsed = mcpServersSchema.safeParse({ [name]: definition });
  const issues = parsed.success ? [] : parsed.error.issues;
  const entry = parsed.success ? parsed.data[name] : undefined;
  if (issues.length > 0 || entry === undefined || !isServerEntry(entry)) {
    const { errors, warnings } = classifyIssues(issues, true);
    const problems = [...errors, ...warnings].map((issue) => {
      // Paths are relative to the definition: `command: must be ...`, not `mcp_servers.x.command`.
      const prefix = formatPath([name]);
      const path = issue.path === prefix ? "(name)" : issue.path.slice(prefix.length).replace(/^\./, "");
      return `${path || "(definition)"}: ${issue.message}`;
    });
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).join("; ");
    const more =
      problems.length > MAX_PROBLEMS_SHOWN ? ` (and ${problems.length - MAX_PROBLEMS_SHOWN} more)` : "";
    return {
      ok: false,
      problem: shown === "" ? `${formatPath([name])}: not a server definition` : `${shown}${more}`,
    };
  }
  return { ok: true, spec: { ...specFromEntry(name, entry), source: "discovery" } };
};

/**
 * The adapters of `discovery.sources`, from each entry's own keys (already validated by the
 * configuration schema; a `PUT /discovery/sources/{id}` `config` is checked here, naming the field).
 * Docker reads the source's `socket_path`, else the engine the docker servers use; Kubernetes reads
 * the source's `kubeconfig` file (and `context`), else the in-cluster service account.
 */
export function discoveryAdapters(
  env: Pick<EnvSettings, "containerEndpoint" | "containerRuntime">,
): DiscoverySourceFactory {
  return (type, keys) => {
    switch (type) {
      // dockerode and the Kubernetes client load on the first scan (see lazy-adapters.ts).
      case "docker": {
        const socketPath = optionalText(keys, "socket_path");
        const endpoint = socketPath ? { socketPath } : env.containerEndpoint;
        return lazyDiscoverySource("docker", async () => {
          const [{ DockerDiscoverySource }, { createEngineClient }] = await Promise.all([
            import("../adapters/discovery/docker/docker-discovery-source.js"),
            import("../adapters/upstream/docker/engine-client.js"),
          ]);
          return new DockerDiscoverySource({
            client: createEngineClient(endpoint),
            runtime: env.containerRuntime,
          });
        });
      }
      case "kubernetes": {
        const namespaces = textList(keys, "namespaces");
        const labelSelector = optionalText(keys, "label_selector");
        const kubeconfigPath = optionalText(keys, "kubeconfig");
        const context = optionalText(keys, "context");
        return lazyDiscoverySource("kubernetes", async () => {
          const [{ KubernetesDiscoverySource }, { loadKubeConfig }] = await Promise.all([
            import("../adapters/discovery/kubernetes/kubernetes-discovery-source.js"),
            import("../adapters/discovery/kubernetes/load-kube-config.js"),
          ]);
          return new KubernetesDiscoverySource({
            kubeConfig: loadKubeConfig({ kubeconfigPath, context }),
            namespaces,
            labelSelector,
          });
        });
      }
      case "filesystem": {
        const path = optionalText(keys, "path");
        if (!path)
          throw validationError("config.path is required: the directory of definition files", {
            field: "config.path",
          });
        return new FilesystemDiscoverySource({ path, pattern: optionalText(keys, "pattern") ?? "*.yaml" });
      }
      case "entrypoint":
        return new EntrypointDiscoverySource({
          nodeModules: optionalText(keys, "node_modules") ?? "./node_modules",
        });
    }
  };
}

function optionalText(keys: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = keys[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw validationError(`config.${key} must be a non-empty string`, { field: `config.${key}` });
  }
  return value;
}

function textList(keys: Readonly<Record<string, unknown>>, key: string): string[] {
  const value = keys[key] ?? [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === "")) {
    throw validationError(`config.${key} must be a list of non-empty strings`, { field: `config.${key}` });
  }
  return value as string[];
}

/** Connect (MCP initialize) and disconnect: the endpoint answers as an MCP server. */
function probeThrough(remote: UpstreamFactory): EndpointProbe {
  const noLogs = { append() {} };
  return {
    async probe(spec) {
      const connection = await remote.connect(spec, noLogs, { timeoutMs: PROBE_TIMEOUT_MS });
      await connection.close().catch(() => undefined);
    },
  };
}
