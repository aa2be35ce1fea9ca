/**
 * The configuration the gateway runs with, as its document: what the file said when it was last
 * loaded or successfully reloaded.
 *
 * Guaranteed: the document is the YAML as written (before defaults and environment overrides),
 * or, when the gateway was not started from a file, the validated configuration. It never
 * includes servers or groups registered at runtime. Callers must not mutate it.
 */
export interface RunningConfig {
  document(): unknown;
}
