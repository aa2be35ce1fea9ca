/** What one configuration reload did (spec 2 §4 `gateway_reload_config`). */
export interface ReloadOutcome {
  readonly config_path: string;
  readonly mcp_servers_added: readonly string[];
  readonly mcp_servers_removed: readonly string[];
  readonly mcp_servers_updated: readonly string[];
  readonly mcp_servers_unchanged: readonly string[];
  readonly duration_ms: number;
  /** Sections that differ but apply only at the next start. */
  readonly restart_required: readonly string[];
}

/**
 * Reloads the configuration file the process was started with. Guaranteed: one reload runs at a
 * time (a second request waits for the first); a refused reload (invalid file, changed
 * `tool_access.mode`, invalid policy) changes nothing and rejects with a `GatewayError` whose
 * message starts `Configuration reload failed: `. Not guaranteed: a failure half-way through
 * applying (a stop that throws) is reported but what was applied before it stays.
 */
export interface ConfigReloader {
  reload(request: { graceful: boolean; requestedBy: string }): Promise<ReloadOutcome>;
  /**
   * The last reload of this process, when it failed: when (epoch seconds) and why (the reason its
   * `ConfigurationReloadFailed` event carries). Null before any reload and after one that succeeded.
   */
  lastFailure(): { readonly at: number; readonly reason: string } | null;
}
