import type { ToolPolicy } from "../policy/tool-policy.js";

/**
 * How to run one MCP server, as the application needs it: built from the configuration file or
 * from a REST registration. Names follow the configuration keys.
 */
export type ServerMode = "subprocess" | "docker" | "remote";

/**
 * `config`: the configuration file; `api`: REST registration; `runtime`: hot-loaded (never
 * persisted); `discovery`: registered by the discovery cycle (stored like `api` ones, exempt from
 * the SSRF policy like the configuration file's servers).
 */
export type ServerSource = "config" | "api" | "runtime" | "discovery";

export interface ToolSchema {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /**
   * The tool's other listed fields (title, annotations, icons, execution, _meta), kept as the
   * upstream sent them so the front door lists the tool unchanged. Not part of the digest.
   */
  listing?: Record<string, unknown>;
}

export interface ServerSpec {
  readonly id: string;
  readonly mode: ServerMode;
  readonly command?: readonly string[];
  readonly image?: string;
  readonly endpoint?: string;
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /**
   * Working directory of a local server (subprocess command, docker build context). Servers of the
   * configuration file run in the file's directory, so relative paths there mean the same wherever
   * the gateway was started.
   */
  readonly cwd?: string;
  readonly idle_ttl_s: number;
  readonly health_check_interval_s: number;
  readonly max_consecutive_failures: number;
  readonly description?: string;
  /** Tool schemas declared in configuration: listed without starting the server. */
  readonly predefined_tools?: readonly ToolSchema[];
  /** Per-server concurrency budget; 0 means no limit. */
  readonly max_concurrency?: number;
  readonly max_response_bytes?: number;
  /** The `tools:` access policy of the server (allow, deny and approval lists). */
  readonly tool_policy?: ToolPolicy;
  /** Declared contract checked at runtime: tools outside `tools` violate it. */
  readonly capabilities?: CapabilityContract;
  /** The remaining mode-specific configuration (docker, remote), passed to the upstream factory. */
  readonly options?: Readonly<Record<string, unknown>>;
  readonly source: ServerSource;
}

export interface CapabilityContract {
  /** fnmatch patterns of the tools the server may expose; absent means not declared. */
  readonly tools?: readonly string[];
  /** fnmatch patterns of the resource URIs (and URI templates) it may expose; absent: not declared. */
  readonly resources?: readonly string[];
  /** Names (fnmatch patterns) of the configured `env` variables it may receive; absent: not declared. */
  readonly environment?: { readonly variables: readonly string[] };
  /**
   * `block` kills a server exposing undeclared tools, withholds undeclared variables and hides
   * undeclared resources; `warn` and `audit` only report them.
   */
  readonly enforcement_mode: "audit" | "warn" | "block";
}

export const SERVER_DEFAULTS = {
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
} as const;
