import type { Clock } from "../../app/ports/clock.js";
import type {
  ContinuationBytes,
  ContinuationOwner,
  ContinuationStore,
} from "../../app/ports/continuation-store.js";
import { ownerKey } from "./owner-key.js";

/**
 * Bytes of result text one replica keeps at most (256 MiB). Five times the 50 MB a whole batch may
 * return, and 25 times the 10 MB a single result may have: room for many concurrent truncated
 * batches while the heap stays bounded whatever `max_cache_entries` says.
 */
export const DEFAULT_MEMORY_MAX_BYTES = 256 * 1024 * 1024;

export interface MemoryContinuationOptions {
  /** `truncation.cache_ttl_s`. */
  ttlSeconds: number;
  /** `truncation.max_cache_entries`. */
  maxEntries: number;
  /** Bytes kept at most; defaults to {@link DEFAULT_MEMORY_MAX_BYTES}. */
  maxBytes?: number;
  clock: Clock;
}

interface Entry {
  owner: string;
  bytes: Buffer;
  /** Monotonic milliseconds. */
  expiresAt: number;
}

/**
 * Continuations in this process (`cache_driver: memory`): per replica, lost on restart. Holds at
 * most `maxEntries` entries and `maxBytes` bytes, evicting the oldest first; a text larger than
 * `maxBytes` on its own is declined. Every entry has the same time to live, so insertion order is
 * also expiry order: expired entries are swept from the oldest end on every write.
 */
export class MemoryContinuationStore implements ContinuationStore {
  readonly driver = "memory" as const;
  private readonly entries = new Map<string, Entry>();
  private usedBytes = 0;
  private readonly maxBytes: number;

  constructor(private readonly options: MemoryContinuationOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MEMORY_MAX_BYTES;
  }

  /** Entries held now (expired ones not yet swept included). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.usedBytes;
  }

  async put(id: string, owner: ContinuationOwner, text: string): Promise<boolean> {
    const bytes = Buffer.from(text, "utf8");
    this.remove(id);
    this.sweep();
    if (bytes.length > this.maxBytes) return false;
    while (
      this.entries.size > 0 &&
      (this.entries.size >= this.options.maxEntries || this.usedBytes + bytes.length > this.maxBytes)
    ) {
      this.remove(this.entries.keys().next().value as string);
    }
    this.entries.set(id, {
      owner: ownerKey(owner),
      bytes,
      expiresAt: this.options.clock.monotonic() + this.options.ttlSeconds * 1000,
    });
    this.usedBytes += bytes.length;
    return true;
  }

  async read(
    id: string,
    owner: ContinuationOwner,
    start: number,
    end: number,
  ): Promise<ContinuationBytes | null> {
    const entry = this.live(id, owner);
    if (!entry) return null;
    const total = entry.bytes.length;
    const from = Math.min(Math.max(0, start), total);
    return { total_bytes: total, bytes: entry.bytes.subarray(from, Math.max(from, Math.min(end, total))) };
  }

  async delete(id: string, owner: ContinuationOwner): Promise<boolean> {
    if (!this.live(id, owner)) return false;
    this.remove(id);
    return true;
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.usedBytes = 0;
  }

  private live(id: string, owner: ContinuationOwner): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.options.clock.monotonic()) {
      this.remove(id);
      return undefined;
    }
    return entry.owner === ownerKey(owner) ? entry : undefined;
  }

  private sweep(): void {
    const now = this.options.clock.monotonic();
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.remove(id);
    }
  }

  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.usedBytes -= entry.bytes.length;
  }
}
