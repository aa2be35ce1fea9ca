import type Docker from "dockerode";
import type {
  DiscoveredServer,
  DiscoveryScan,
  DiscoverySource,
} from "../../../app/ports/discovery-source.js";
import { quote } from "../discovered-name.js";
import { DiscoverySourceError } from "../discovery-source-error.js";
import { httpEndpoint, isEnabled, readGroup, readName, readPath, readPort } from "../label-values.js";
import { ScanCollector } from "../scan-collector.js";

/** The labels a container carries to be discovered (spec document 3). */
export const DOCKER_LABELS = {
  enabled: "airlock.enabled",
  name: "airlock.name",
  mode: "airlock.mode",
  port: "airlock.port",
  path: "airlock.path",
  group: "airlock.group",
} as const;

/** Spec document 3 defaults of `airlock.port` and `airlock.path`. */
export const DEFAULT_HTTP_PORT = 8080;
export const DEFAULT_HTTP_PATH = "/mcp";

/**
 * `airlock.mode` when absent: `http`. Only running containers are listed, so the container found
 * is the server to reach; `container` (run the image again over stdio) must be asked for.
 */
export const DEFAULT_LABEL_MODE = "http";

export interface DockerDiscoveryOptions {
  /**
   * A dockerode client for the engine to read: the source's `socket_path` when set, else the
   * runtime's endpoint the configuration loader resolved (`DOCKER_HOST`, Podman's socket with
   * `MCP_CONTAINER_RUNTIME=podman`, ...). The composition builds it with the docker upstream's
   * `createEngineClient`, so both read the same engine the same way.
   */
  readonly client: Docker;
  /** Which engine serves the API; only used to name it in messages. Default `docker`. */
  readonly runtime?: "docker" | "podman";
}

/** Wait before reopening a lost event stream: the engine restarting should not be hammered. */
export const EVENT_RECONNECT_MS = 5_000;

/** Container events that change what a scan sees: started, stopped or crashed, removed. */
const WATCHED_EVENTS = ["start", "die", "destroy"];

/** Error codes of a connection that never reached the engine. */
const UNREACHABLE_CODES = new Set(["ENOENT", "ECONNREFUSED", "EACCES", "EPERM", "ECONNRESET", "ETIMEDOUT"]);

/**
 * Running containers labelled `airlock.enabled=true`, read through the Docker Engine API (or
 * Podman's compatible API). One list request per scan; the label filter runs in the engine.
 *
 * Guaranteed: only containers in state `running` are returned; a container whose labels cannot
 * make a server (no name, a bad port or path, no address) is a problem line naming it and the
 * label; two containers asking for one name: the first by container name wins, the other is a
 * problem line. Rejects when the engine cannot be reached or answers an error; the message names
 * the error code or status, never the socket path.
 */
export class DockerDiscoverySource implements DiscoverySource {
  readonly type = "docker" as const;
  private readonly runtime: "docker" | "podman";

  constructor(private readonly options: DockerDiscoveryOptions) {
    this.runtime = options.runtime ?? "docker";
  }

  /**
   * Follows the engine's event stream (`GET /events`, containers labelled `airlock.enabled=true`
   * starting, dying, being removed) and calls `onChange` for each (the discovery service waits for
   * a burst to end before it scans: a compose project starting is one scan). A lost stream is reopened
   * after {@link EVENT_RECONNECT_MS}, followed by one `onChange` since events may have been missed.
   * Never throws; when the engine is down the refresh interval's scans report it.
   */
  watch(onChange: () => void): () => void {
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    let controller: AbortController | undefined;
    const changed = () => {
      if (!stopped) onChange();
    };
    const reconnect = () => {
      if (stopped || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        void open(true);
      }, EVENT_RECONNECT_MS);
    };
    const open = async (missedEvents: boolean) => {
      controller = new AbortController();
      try {
        const stream = await this.options.client.getEvents({
          filters: { type: ["container"], event: WATCHED_EVENTS, label: [`${DOCKER_LABELS.enabled}=true`] },
          // dockerode honours it; its declarations lack it.
          abortSignal: controller.signal,
        } as Docker.GetEventsOptions);
        if (stopped) return;
        if (missedEvents) changed();
        stream.on("data", changed);
        stream.on("error", reconnect);
        stream.on("end", reconnect);
        stream.on("close", reconnect);
      } catch {
        reconnect();
      }
    };
    void open(false);
    return () => {
      stopped = true;
      clearTimeout(retry);
      controller?.abort();
    };
  }

  async scan(signal: AbortSignal): Promise<DiscoveryScan> {
    let containers: Docker.ContainerInfo[];
    try {
      containers = await this.options.client.listContainers({
        filters: { label: [`${DOCKER_LABELS.enabled}=true`], status: ["running"] },
        abortSignal: signal,
      });
    } catch (error) {
      throw new DiscoverySourceError(this.describe(error));
    }
    const collector = new ScanCollector<DiscoveredServer>();
    const running = containers
      .filter((container) => container.State === "running")
      .sort((a, b) => containerName(a).localeCompare(containerName(b)));
    for (const container of running) {
      if (!isEnabled(container.Labels?.[DOCKER_LABELS.enabled])) continue;
      const item = `container ${quote(containerName(container))}`;
      const read = readContainer(container);
      if ("problem" in read) collector.problem(`${item}: ${read.problem}`);
      else collector.add(read.server, item);
    }
    return { servers: collector.servers, problems: collector.problems };
  }

  private describe(error: unknown): string {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && UNREACHABLE_CODES.has(code))
      return `cannot reach the ${this.runtime} engine (${code})`;
    const name = (error as { name?: unknown } | null)?.name;
    if (name === "AbortError")
      return `the ${this.runtime} engine did not answer before the scan was abandoned`;
    const status = (error as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === "number")
      return `the ${this.runtime} engine answered HTTP ${status} to the container list`;
    return `unexpected failure listing the ${this.runtime} engine's containers`;
  }
}

/** The container's name without Docker's leading slash, or its short id when it has none. */
function containerName(container: Docker.ContainerInfo): string {
  return (container.Names?.[0] ?? "").replace(/^\//, "") || container.Id.slice(0, 12);
}

type Read = { readonly server: DiscoveredServer } | { readonly problem: string };

function readContainer(container: Docker.ContainerInfo): Read {
  const labels = container.Labels ?? {};
  const name = readName(DOCKER_LABELS.name, labels[DOCKER_LABELS.name]);
  if ("problem" in name) return name;
  const group = readGroup(DOCKER_LABELS.group, labels[DOCKER_LABELS.group]);
  if ("problem" in group) return group;
  const connectionInfo: Record<string, unknown> = {
    container_id: container.Id,
    container_name: containerName(container),
    image: container.Image,
  };
  const mode = (labels[DOCKER_LABELS.mode] ?? DEFAULT_LABEL_MODE).trim();
  const groupPart = group.value === undefined ? {} : { group: group.value };
  if (mode === "container") {
    return {
      server: {
        name: name.value,
        definition: { mode: "docker", image: container.Image },
        connectionInfo,
        ...groupPart,
      },
    };
  }
  if (mode !== "http") return { problem: `${DOCKER_LABELS.mode} ${quote(mode)} must be container or http` };
  const port = readPort(DOCKER_LABELS.port, labels[DOCKER_LABELS.port], DEFAULT_HTTP_PORT);
  if ("problem" in port) return port;
  const path = readPath(DOCKER_LABELS.path, labels[DOCKER_LABELS.path], DEFAULT_HTTP_PATH);
  if ("problem" in path) return path;
  const network = firstAddress(container);
  if (!network) {
    return {
      problem: `has no IP address on any network (${DOCKER_LABELS.mode}=http needs one; host and none networking give none)`,
    };
  }
  return {
    server: {
      name: name.value,
      definition: { mode: "remote", endpoint: httpEndpoint(network.address, port.value, path.value) },
      connectionInfo: { ...connectionInfo, network: network.name },
      ...groupPart,
    },
  };
}

/**
 * The address on the container's first network that gives it one, in the engine's order (Docker
 * writes the map sorted by network name, so the choice is stable).
 */
function firstAddress(container: Docker.ContainerInfo): { name: string; address: string } | undefined {
  for (const [name, settings] of Object.entries(container.NetworkSettings?.Networks ?? {})) {
    const address = settings?.IPAddress ?? "";
    if (address !== "") return { name, address };
  }
  return undefined;
}
