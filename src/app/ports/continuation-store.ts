/** Who a continuation was kept for; only the same principal of the same tenant may read or drop it. */
export interface ContinuationOwner {
  principal_id: string;
  tenant_id: string | null;
}

/** Bytes of a kept result read back. */
export interface ContinuationBytes {
  /** The stored size of the whole result, in bytes. */
  total_bytes: number;
  /** The bytes of the requested range, clamped to the stored size (empty past its end). */
  bytes: Uint8Array;
}

/**
 * Where the complete text of a truncated `gateway_call` result is kept, for `cache_ttl_s` seconds
 * after it was stored (the time to live is the store's, fixed when it is opened).
 *
 * Guarantees: text is stored as UTF-8 and read back byte for byte; an entry answers only the owner
 * it was stored for, and a missing, expired, evicted and another owner's entry are indistinguishable
 * (all "not found"). Not guaranteed: that an entry lives its whole time to live (a bounded store
 * evicts oldest first), nor that another replica sees it (the memory store is per replica).
 * Backend failures reject; callers decide how to degrade.
 */
export interface ContinuationStore {
  /** `memory` or `redis`, for logs and reports. */
  readonly driver: "memory" | "redis";
  /** Keeps `text` under `id`. Resolves false when the store declines it (larger than it may hold). */
  put(id: string, owner: ContinuationOwner, text: string): Promise<boolean>;
  /** Bytes `[start, end)` of the entry, or null when not found for this owner. */
  read(id: string, owner: ContinuationOwner, start: number, end: number): Promise<ContinuationBytes | null>;
  /** Drops the entry; false when there was none for this owner. */
  delete(id: string, owner: ContinuationOwner): Promise<boolean>;
  /** Releases the backend (connections, timers). Idempotent. */
  close(): Promise<void>;
}
