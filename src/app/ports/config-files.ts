/**
 * The configuration file `POST /config/backup` and `GET /config/diff` act on (spec 1
 * "Configuration"): the file named by `MCP_CONFIG`, or `config.yaml` in the working directory, which
 * may differ from the file the process was started with (`--config`).
 *
 * Guaranteed: every failure rejects with a `GatewayError` of type `ConfigFileUnavailableError`
 * whose message says why (file missing or unreadable, invalid YAML, directory not writable); the
 * configuration file itself is never written. Not guaranteed: a backup racing another writer of
 * the same directory sees a consistent rotation.
 */
export interface ConfigFiles {
  /** Absolute path of the file. */
  readonly path: string;
  /** The file parsed as YAML (merge keys resolved); null for an empty document. */
  readDocument(): Promise<unknown>;
  /**
   * Copies the file to `<path>.bak1`; the previous `.bak1` becomes `.bak2` and so on, and the
   * oldest beyond the adapter's cap is deleted. Resolves to the path of the new `.bak1`.
   */
  backup(): Promise<string>;
  /** A configuration document as YAML text, in the form `airlock config check` reads. */
  format(document: unknown): string;
  /**
   * A unified diff (`---`/`+++` headers labelled as given, then `@@` hunks) turning the text
   * `before` into `after`; the empty string when they are equal.
   */
  unifiedDiff(before: string, after: string, labels: { before: string; after: string }): string;
}
