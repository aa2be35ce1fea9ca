/**
 * What a store adapter reports about reachability, from the outcomes of the queries it really
 * runs (no extra traffic). Called on the query path: implementations must return at once.
 */
export interface StoreOutcomes {
  /** The store answered a query (with rows or with an SQL error): it is reachable. */
  reached(): void;
  /**
   * A query failed because the store could not be reached: connection refused, reset or timed out,
   * the server shutting down or not yet accepting connections. `reason` is the driver's own
   * description, for the log only.
   */
  unreachable(reason?: string): void;
}

/**
 * Resolves when the store answers a trivial query, rejects when it cannot be reached. Cheap: one
 * round trip on a pooled connection.
 */
export type StoreProbe = () => Promise<void>;

/**
 * Whether the shared store is reachable, as the last query or probe found it.
 *
 * Guaranteed: the state follows the latest reported outcome, and while the store is unreachable it
 * is probed periodically, so recovery is noticed without traffic. Not guaranteed: that the store is
 * reachable at the moment of reading (a query can fail the next instant); that every unreachable
 * moment is seen (only queries and probes observe it).
 */
export interface StoreAvailability {
  /** `postgresql db@host`: for readiness details and logs, never a password. */
  readonly description: string;
  /** Monotonic ms since which the store has been unreachable without interruption; null while reachable. */
  unreachableSince(): number | null;
  /**
   * Calls `listener` each time the store turns reachable again after being unreachable (for
   * example to retry what waits on it at once); answers the function that removes it.
   */
  onReachable(listener: () => void): () => void;
}
