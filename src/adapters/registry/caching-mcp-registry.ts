import type { McpRegistry, RegistryServer } from "../../app/ports/mcp-registry.js";

export interface RegistryCacheOptions {
  /** `hot_loading.cache.ttl_s`, in milliseconds; 0 turns the cache off. */
  readonly ttlMs: number;
  /** `hot_loading.cache.max_entries`: searches kept; the least recently used is dropped first. */
  readonly maxEntries: number;
  /** Epoch milliseconds (the gateway's clock), so tests can let entries expire without waiting. */
  readonly now: () => number;
}

interface Entry {
  readonly servers: readonly RegistryServer[];
  readonly expiresAt: number;
}

/**
 * Keeps the answers of another {@link McpRegistry} for `ttlMs`, at most `maxEntries` of them (least
 * recently used evicted first). Searches differing only in case or surrounding blanks share one
 * entry, as the registry matches case-insensitively. Only answers are kept, never failures, and
 * concurrent searches for one term share a single request.
 */
export class CachingMcpRegistry implements McpRegistry {
  // A Map iterates in insertion order: re-inserting on every hit keeps the oldest use first.
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<readonly RegistryServer[]>>();

  constructor(
    private readonly inner: McpRegistry,
    private readonly options: RegistryCacheOptions,
  ) {}

  async search(term: string): Promise<readonly RegistryServer[]> {
    if (this.options.ttlMs <= 0) return this.inner.search(term);
    const key = term.trim().toLowerCase();
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      if (hit.expiresAt > this.options.now()) {
        this.entries.set(key, hit);
        return hit.servers;
      }
    }
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const request = this.inner.search(term).then((servers) => {
      this.store(key, servers);
      return servers;
    });
    this.inFlight.set(key, request);
    try {
      return await request;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Searches currently kept (expired ones included until they are next asked for or evicted). */
  get size(): number {
    return this.entries.size;
  }

  private store(key: string, servers: readonly RegistryServer[]): void {
    this.entries.set(key, { servers, expiresAt: this.options.now() + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
