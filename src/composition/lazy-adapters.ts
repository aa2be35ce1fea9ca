import type { DiscoveryScan, DiscoverySource, DiscoverySourceType } from "../app/ports/discovery-source.js";
import type { HttpClient, HttpClientFactory, HttpClientOptions } from "../app/ports/endpoint-guard.js";
import type { McpRegistry, RegistryServer } from "../app/ports/mcp-registry.js";
import type { ConnectOptions, LogSink, UpstreamConnection, UpstreamFactory } from "../app/ports/upstream.js";
import type { ServerSpec } from "../domain/server/server-spec.js";

/**
 * Adapters whose libraries are large (dockerode, the Kubernetes client, BullMQ, ioredis: tens of
 * MiB and up to seconds of loading each) are imported the first time they are used, not at start:
 * a gateway that never runs a container or watches a cluster never loads them. The first use waits
 * for the import once; a failed import is retried on the next use.
 */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}

/** An upstream factory built on first `connect`. */
export function lazyUpstreamFactory(load: () => Promise<UpstreamFactory>): UpstreamFactory {
  const factory = once(load);
  return {
    async connect(spec: ServerSpec, logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection> {
      return (await factory()).connect(spec, logs, options);
    },
  };
}

/** An HTTP client factory (undici) built on the first remote connection. */
export function lazyHttpClientFactory(load: () => Promise<HttpClientFactory>): HttpClientFactory {
  const factory = once(load);
  return {
    async create(options: HttpClientOptions): Promise<HttpClient> {
      return (await factory()).create(options);
    },
  };
}

/** An MCP registry client (undici) built on the first search. */
export function lazyMcpRegistry(load: () => Promise<McpRegistry>): McpRegistry {
  const registry = once(load);
  return {
    async search(term: string): Promise<readonly RegistryServer[]> {
      return (await registry()).search(term);
    },
  };
}

/**
 * A discovery source built on its first scan. Its change feed, when the real source has one,
 * starts once the source is loaded (the first cycle runs at start, so that is at once).
 */
export function lazyDiscoverySource(
  type: DiscoverySourceType,
  load: () => Promise<DiscoverySource>,
): DiscoverySource {
  const source = once(load);
  // The change feed asked for, attached once the source has loaded: at once, or after the first
  // scan that loads it when an earlier load failed (a kubeconfig mounted late, a socket not there yet).
  let watching: { onChange: () => void; stop?: () => void; stopped: boolean } | undefined;
  const attach = (loaded: DiscoverySource) => {
    if (watching && !watching.stopped && !watching.stop && loaded.watch)
      watching.stop = loaded.watch(watching.onChange);
  };
  return {
    type,
    async scan(signal: AbortSignal): Promise<DiscoveryScan> {
      const loaded = await source();
      attach(loaded);
      return loaded.scan(signal);
    },
    watch(onChange: () => void): () => void {
      const current = { onChange, stopped: false } as NonNullable<typeof watching>;
      watching = current;
      // The scan reports why the source cannot load; the watch has nothing to add.
      source().then(attach, () => undefined);
      return () => {
        current.stopped = true;
        current.stop?.();
      };
    },
  };
}
