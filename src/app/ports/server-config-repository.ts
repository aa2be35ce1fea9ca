import type { ServerSpec } from "../../domain/server/server-spec.js";

/** A server configuration registered through REST, as stored. Times are epoch seconds, fractional. */
export interface StoredServerConfig {
  readonly id: string;
  /** The specification exactly as saved (read back through JSON: `undefined` members are absent). */
  readonly spec: ServerSpec;
  readonly created_at: number;
  readonly updated_at: number;
}

/**
 * The durable configuration repository: servers registered through REST, so they come back after
 * a restart and on every replica.
 *
 * Guaranteed: `save` replaces the whole record of `spec.id` (no merge) and keeps the first
 * `created_at`; `list` is ordered by id; records hold the specification as given, sensitive values
 * (`env`, mode `options` such as headers) included, so a reader that shows them (GET /config) must
 * strip them itself. Not guaranteed: any ordering between concurrent saves of the same id (the last
 * write wins); validation of the specification (the caller validates before saving).
 */
export interface ServerConfigRepository {
  /** Inserts or replaces the record of `spec.id`; `at` becomes `updated_at` (and `created_at` when new). */
  save(spec: ServerSpec, at: number): Promise<StoredServerConfig>;
  get(id: string): Promise<StoredServerConfig | undefined>;
  /** True when a record was removed. */
  delete(id: string): Promise<boolean>;
  list(): Promise<StoredServerConfig[]>;
}
