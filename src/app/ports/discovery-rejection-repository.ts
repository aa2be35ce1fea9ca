/**
 * An operator's rejection of a discovered server's definition (`POST /discovery/reject/{name}`,
 * `gateway_approve {approve: false}`). `rejected_at` is epoch seconds, fractional.
 */
export interface DiscoveryRejection {
  readonly mcp_server_id: string;
  /** The fingerprint of the definition rejected: a changed definition is not rejected. */
  readonly fingerprint: string;
  readonly rejected_by: string;
  readonly rejected_at: number;
}

/**
 * Rejections kept in the store, so that a restart or a new fleet manager does not hold a rejected
 * definition for approval again.
 *
 * Guaranteed: at most one record per server name; rejecting again replaces it; `list` is ordered
 * by name. Not guaranteed: that a source still reports the server.
 */
export interface DiscoveryRejectionRepository {
  put(record: DiscoveryRejection): Promise<void>;
  /** True when a record was removed. */
  remove(mcpServerId: string): Promise<boolean>;
  list(): Promise<DiscoveryRejection[]>;
}
