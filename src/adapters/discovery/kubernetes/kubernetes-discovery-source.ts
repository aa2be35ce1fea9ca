import {
  type ConfigurationOptions,
  CoreV1Api,
  type KubeConfig,
  Observable,
  type RequestContext,
  type ResponseContext,
  type V1Pod,
  type V1Service,
} from "@kubernetes/client-node";
import type {
  DiscoveredServer,
  DiscoveryScan,
  DiscoverySource,
} from "../../../app/ports/discovery-source.js";
import { quote } from "../discovered-name.js";
import { DiscoverySourceError } from "../discovery-source-error.js";
import { httpEndpoint, isEnabled, readGroup, readName, readPath, readPort } from "../label-values.js";
import { ScanCollector } from "../scan-collector.js";

/** The annotations a pod or service carries to be discovered (spec document 3). */
export const KUBERNETES_ANNOTATIONS = {
  enabled: "airlock.dev/enabled",
  name: "airlock.dev/name",
  port: "airlock.dev/port",
  path: "airlock.dev/path",
  group: "airlock.dev/group",
} as const;

/** `airlock.dev/port` when absent and the object declares no port either (as Docker's default). */
export const DEFAULT_KUBERNETES_PORT = 8080;
export const DEFAULT_KUBERNETES_PATH = "/mcp";

export interface KubernetesDiscoveryOptions {
  /** Where the API is and how to authenticate: see {@link loadKubeConfig}. */
  readonly kubeConfig: KubeConfig;
  /** Namespaces to read; empty: every namespace (cluster-wide lists). */
  readonly namespaces: readonly string[];
  /** Passed to the API as `labelSelector` (equality and set-based forms). */
  readonly labelSelector?: string | undefined;
}

type Kind = "pods" | "services";

/**
 * Pods and services annotated `airlock.dev/enabled: "true"`, read with list calls (one per kind and
 * namespace, or cluster-wide when no namespace is named). No watch: the discovery cycle's refresh
 * interval polls it.
 *
 * Guaranteed: a pod counts only while its phase is `Running`, it has a `podIP` and is not being
 * deleted; its endpoint is `http://<podIP>:<port><path>`. A service's endpoint is its cluster DNS
 * name `http://<name>.<namespace>.svc:<port><path>` (stable across re-creation, and it works for
 * headless services, which have no clusterIP). Services are read before pods, so when a service
 * and the pods behind it carry the same name the service wins and the pods are problem lines.
 * When any namespace cannot be listed (403, 5xx, unreachable) the whole scan rejects: a partial
 * answer would make an authoritative source remove the servers it could not see.
 */
export class KubernetesDiscoverySource implements DiscoverySource {
  readonly type = "kubernetes" as const;
  /** The client, or why there is none (the configuration reaches no API server). */
  private readonly api: CoreV1Api | string;

  constructor(private readonly options: KubernetesDiscoveryOptions) {
    const problem = configurationProblem(options.kubeConfig);
    this.api = problem ?? options.kubeConfig.makeApiClient(CoreV1Api);
  }

  async scan(signal: AbortSignal): Promise<DiscoveryScan> {
    const api = this.api;
    if (typeof api === "string") throw new DiscoverySourceError(api);
    const scopes = this.options.namespaces.length > 0 ? [...new Set(this.options.namespaces)] : [undefined];
    const [services, pods] = await Promise.all([
      Promise.all(scopes.map((namespace) => this.services(api, namespace, signal))),
      Promise.all(scopes.map((namespace) => this.pods(api, namespace, signal))),
    ]);
    const collector = new ScanCollector<DiscoveredServer>();
    for (const service of sorted(services.flat())) {
      const annotations = service.metadata?.annotations ?? {};
      if (!isEnabled(annotations[KUBERNETES_ANNOTATIONS.enabled])) continue;
      const item = describe("service", service);
      const read = readService(service);
      if ("problem" in read) collector.problem(`${item}: ${read.problem}`);
      else collector.add(read.server, item);
    }
    for (const pod of sorted(pods.flat())) {
      const annotations = pod.metadata?.annotations ?? {};
      if (!isEnabled(annotations[KUBERNETES_ANNOTATIONS.enabled])) continue;
      // Pending, finished or terminating pods are not servers yet, or no longer: not problems.
      if (pod.status?.phase !== "Running" || pod.metadata?.deletionTimestamp) continue;
      const item = describe("pod", pod);
      const read = readPod(pod);
      if ("problem" in read) collector.problem(`${item}: ${read.problem}`);
      else collector.add(read.server, item);
    }
    return { servers: collector.servers, problems: collector.problems };
  }

  private pods(api: CoreV1Api, namespace: string | undefined, signal: AbortSignal): Promise<V1Pod[]> {
    const labelSelector = this.options.labelSelector;
    return guarded("pods", namespace, async () => {
      const answer = namespace
        ? await api.listNamespacedPod({ namespace, labelSelector }, withSignal(signal))
        : await api.listPodForAllNamespaces({ labelSelector }, withSignal(signal));
      return answer.items;
    });
  }

  private services(api: CoreV1Api, namespace: string | undefined, signal: AbortSignal): Promise<V1Service[]> {
    const labelSelector = this.options.labelSelector;
    return guarded("services", namespace, async () => {
      const answer = namespace
        ? await api.listNamespacedService({ namespace, labelSelector }, withSignal(signal))
        : await api.listServiceForAllNamespaces({ labelSelector }, withSignal(signal));
      return answer.items;
    });
  }
}

/** Runs one list call; its failure becomes a {@link DiscoverySourceError} with a safe message. */
async function guarded<T>(kind: Kind, namespace: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new DiscoverySourceError(failure(kind, namespace, error));
  }
}

/**
 * Why the configuration cannot reach any API server, or undefined. Outside a cluster the client's
 * in-cluster loader still builds a server address, from unset variables (`https://undefined:...`):
 * said plainly here rather than as a confusing connection error on every scan.
 */
function configurationProblem(config: KubeConfig): string | undefined {
  const server = config.getCurrentCluster()?.server;
  const outside = "no Kubernetes API is configured: not running in a cluster, and no kubeconfig file named";
  if (!server) return outside;
  try {
    return new URL(server).hostname === "undefined" ? outside : undefined;
  } catch {
    return "the configured Kubernetes API server address is not a URL";
  }
}

/** Request options that carry the scan's abort signal into the client's fetch. */
function withSignal(signal: AbortSignal): ConfigurationOptions {
  return {
    middleware: [
      {
        pre: (context: RequestContext) => {
          context.setSignal(signal);
          return new Observable(Promise.resolve(context));
        },
        post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
      },
    ],
    middlewareMergeStrategy: "append",
  };
}

/**
 * A safe message for a failed list: the HTTP status and the API's `reason`, or the connection error
 * code. Never the exception's own message, which repeats the response headers.
 */
function failure(kind: Kind, namespace: string | undefined, error: unknown): string {
  const where = namespace === undefined ? "in all namespaces" : `in namespace ${quote(namespace)}`;
  const status = (error as { code?: unknown } | null)?.code;
  if (typeof status === "number") {
    const body = (error as { body?: unknown }).body;
    const parsed = typeof body === "string" ? safeJson(body) : body;
    const reason = (parsed as { reason?: unknown } | null)?.reason;
    const because = typeof reason === "string" && reason !== "" ? ` (${reason})` : "";
    return `the Kubernetes API answered HTTP ${status}${because} to listing ${kind} ${where}`;
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "AbortError") return `listing ${kind} ${where} was abandoned`;
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code ?? status;
  if (typeof code === "string" && /^E[A-Z_]+$/.test(code))
    return `cannot reach the Kubernetes API (${code}) to list ${kind} ${where}`;
  // The client refused before sending (plain HTTP without skip-TLS-verify, a failing credential
  // plugin): its message may quote plugin output, so only the kind of failure is named.
  return `the Kubernetes client could not send the request to list ${kind} ${where} (check the kubeconfig or in-cluster configuration)`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sorted<T extends V1Pod | V1Service>(items: T[]): T[] {
  const keyOf = (item: T) => `${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`;
  return items.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
}

function describe(kind: "pod" | "service", item: V1Pod | V1Service): string {
  return `${kind} ${quote(`${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`)}`;
}

type Read = { readonly server: DiscoveredServer } | { readonly problem: string };

function readCommon(
  kind: "pod" | "service",
  item: V1Pod | V1Service,
  declaredPort: number | undefined,
):
  | { problem: string }
  | { name: string; group: string | undefined; port: number; path: string; info: Record<string, unknown> } {
  const annotations = item.metadata?.annotations ?? {};
  const name = readName(KUBERNETES_ANNOTATIONS.name, annotations[KUBERNETES_ANNOTATIONS.name]);
  if ("problem" in name) return name;
  const group = readGroup(KUBERNETES_ANNOTATIONS.group, annotations[KUBERNETES_ANNOTATIONS.group]);
  if ("problem" in group) return group;
  const port = readPort(
    KUBERNETES_ANNOTATIONS.port,
    annotations[KUBERNETES_ANNOTATIONS.port],
    declaredPort ?? DEFAULT_KUBERNETES_PORT,
  );
  if ("problem" in port) return port;
  const path = readPath(
    KUBERNETES_ANNOTATIONS.path,
    annotations[KUBERNETES_ANNOTATIONS.path],
    DEFAULT_KUBERNETES_PATH,
  );
  if ("problem" in path) return path;
  return {
    name: name.value,
    group: group.value,
    port: port.value,
    path: path.value,
    info: { namespace: item.metadata?.namespace, kind, name: item.metadata?.name },
  };
}

function server(
  common: { name: string; group: string | undefined; info: Record<string, unknown> },
  endpoint: string,
): DiscoveredServer {
  return {
    name: common.name,
    definition: { mode: "remote", endpoint },
    connectionInfo: common.info,
    ...(common.group === undefined ? {} : { group: common.group }),
  };
}

function readService(service: V1Service): Read {
  const common = readCommon("service", service, service.spec?.ports?.[0]?.port);
  if ("problem" in common) return common;
  const host = `${service.metadata?.name}.${service.metadata?.namespace}.svc`;
  return { server: server(common, httpEndpoint(host, common.port, common.path)) };
}

function readPod(pod: V1Pod): Read {
  const common = readCommon("pod", pod, pod.spec?.containers?.[0]?.ports?.[0]?.containerPort);
  if ("problem" in common) return common;
  const ip = pod.status?.podIP;
  if (!ip) return { problem: "is Running but has no podIP" };
  return { server: server(common, httpEndpoint(ip, common.port, common.path)) };
}
