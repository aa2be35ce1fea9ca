/**
 * A tool withdrawn at run time (`POST /admin/tools/{server}/{tool}/withdraw`). `withdrawn_at` is
 * epoch seconds, fractional.
 */
export interface ToolWithdrawal {
  /** The server or group the withdrawal names. */
  readonly mcp_server_id: string;
  readonly tool_name: string;
  /** The tenant whose callers are refused (never empty: refused with a TypeError); null: every caller. */
  readonly tenant_id: string | null;
  readonly withdrawn_by: string;
  readonly withdrawn_at: number;
}

/**
 * Runtime withdrawals, shared so that every replica refuses a withdrawn tool, a replica started
 * later included, and so that they outlive a restart.
 *
 * Guaranteed: at most one record per server, tool and tenant (null counted as one tenant);
 * withdrawing again replaces the record (latest actor and time); `list` is ordered by
 * `withdrawn_at`, then server, tool and tenant (null first). Not guaranteed: that the server or
 * the tool exists.
 */
export interface ToolWithdrawalRepository {
  withdraw(record: ToolWithdrawal): Promise<void>;
  /**
   * With a tenant, removes that tenant's record (a record for every tenant stays); with null,
   * removes every record of the tool. True when a record was removed.
   */
  restore(server: string, tool: string, tenant: string | null): Promise<boolean>;
  list(): Promise<ToolWithdrawal[]>;
}
