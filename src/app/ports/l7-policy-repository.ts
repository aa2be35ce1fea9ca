import type { L7Policy } from "../../domain/egress/l7-policy.js";

/** The L7 egress policy attached to one MCP server. `updated_at` is epoch seconds, fractional. */
export interface L7PolicyRecord {
  readonly mcp_server_id: string;
  /** The compiled policy, every section filled in. */
  readonly policy: L7Policy;
  /** `sha256:<hex>` over the RFC 8785 canonical JSON of `policy`. */
  readonly policy_id: string;
  readonly updated_at: number;
  readonly updated_by: string;
}

/**
 * L7 egress policies attached through REST, one per MCP server, shared by every replica using the
 * same database.
 *
 * Guaranteed: `set` replaces the whole record of its server; `list` is ordered by server id; a
 * record reads back equal to what was set.
 * Not guaranteed: that the policy compiles under this build (the caller compiles it again on read);
 * that the server still exists (a policy outlives its server and applies again to a server
 * registered later under the same id).
 */
export interface L7PolicyRepository {
  get(mcpServerId: string): Promise<L7PolicyRecord | undefined>;
  set(record: L7PolicyRecord): Promise<void>;
  /** True when a policy was removed. */
  delete(mcpServerId: string): Promise<boolean>;
  list(): Promise<L7PolicyRecord[]>;
}
