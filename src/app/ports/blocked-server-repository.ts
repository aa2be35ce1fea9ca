/**
 * A server blocked for good (`POST /mcp_servers/{id}/block`). `blocked_at` is epoch seconds,
 * fractional.
 */
export interface BlockedServer {
  readonly mcp_server_id: string;
  readonly blocked_by: string;
  readonly blocked_at: number;
}

/**
 * Blocks kept in the store, so that a blocked server stays blocked across restarts (spec 1 §3:
 * "stopped, permanently blocked").
 *
 * Guaranteed: at most one record per server id; blocking again keeps the first record; `list` is
 * ordered by id. Not guaranteed: that the server still exists.
 */
export interface BlockedServerRepository {
  put(record: BlockedServer): Promise<void>;
  /** True when a record was removed. */
  remove(mcpServerId: string): Promise<boolean>;
  list(): Promise<BlockedServer[]>;
}
