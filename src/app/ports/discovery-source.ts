/**
 * A place where MCP servers can be found: the Docker Engine's containers, Kubernetes pods and
 * services, a directory of definition files, installed Node packages. An adapter only reads; the
 * discovery cycle decides what to do with what it finds (register, hold as pending, quarantine,
 * remove), so every source is judged by the same rules.
 */

/** The source types of spec document 1. */
export type DiscoverySourceType = "docker" | "kubernetes" | "filesystem" | "entrypoint";

/** One server a source found. */
export interface DiscoveredServer {
  /** The server id it would be registered under (a label, an annotation, a key of the file). */
  readonly name: string;
  /**
   * The server's definition in the configuration file's `mcp_servers.<name>` shape (`mode`,
   * `endpoint`, `image`, `command`, ...). Not yet validated: the cycle validates it with the
   * configuration schema and quarantines it when that fails.
   */
  readonly definition: Readonly<Record<string, unknown>>;
  /**
   * Where it was found, shown to operators in the pending and quarantine listings: for example
   * `{container_id, container_name, image}`, `{namespace, kind, name}`, `{file}`, `{package,
   * version}`. Never holds secrets (no environment values, no credentials).
   */
  readonly connectionInfo: Readonly<Record<string, unknown>>;
  /** The group it asks to join (`airlock.group`, `airlock.dev/group`), when it names one. */
  readonly group?: string;
}

/** What one scan saw. */
export interface DiscoveryScan {
  readonly servers: readonly DiscoveredServer[];
  /**
   * Things the source saw but could not read as a server (a malformed file, a container whose
   * labels lack a name): one line each, naming the item and the rule. They do not fail the scan.
   */
  readonly problems: readonly string[];
}

export interface DiscoverySource {
  readonly type: DiscoverySourceType;
  /**
   * Lists what the source holds now. Rejects when the source itself cannot be read (socket
   * refused, API error, directory missing): the cycle records that as the source's
   * `error_message` and leaves the servers it found earlier as they are. Honours `signal`.
   */
  scan(signal: AbortSignal): Promise<DiscoveryScan>;
  /**
   * Optional change feed (a directory watcher, a Kubernetes watch): calls `onChange` when a new
   * scan would likely see something different. Returns a function that stops watching. A source
   * without it is scanned every `refresh_interval_s` only.
   */
  watch?(onChange: () => void): () => void;
}
