import type { DiscoveryMode, DiscoverySourceKind } from "../../domain/discovery/discovery-mode.js";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import type { DiscoverySource } from "../ports/discovery-source.js";

/** `discovery` of the configuration (spec 3 "Discovery configuration and labels"). */
export interface DiscoverySettings {
  /** `discovery.enabled`: false, no cycle runs and `gateway_discover` answers `{error}`. */
  readonly enabled: boolean;
  readonly refreshIntervalS: number;
  readonly autoRegister: boolean;
  readonly quarantineOnFailure: boolean;
  readonly maxServersPerSource: number;
  readonly maxRegistrationsPerMinute: number;
}

/** A source declared in `discovery.sources`, with the adapter that reads it. */
export interface ConfiguredSource {
  readonly type: DiscoverySourceKind;
  readonly mode: DiscoveryMode;
  readonly enabled: boolean;
  /** The source's own keys (`path`, `namespaces`, ...), for a later `config` update to start from. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly source: DiscoverySource;
}

/**
 * Builds the adapter of a source type from its keys (the `discovery.sources` entry without `type`,
 * `mode` and `enabled`); used when `PUT /discovery/sources/{id}` changes a configured source's
 * `config`. Throws `ValidationError` naming the field when the keys are not valid.
 */
export type DiscoverySourceFactory = (
  type: DiscoverySourceKind,
  config: Readonly<Record<string, unknown>>,
) => DiscoverySource;

/** The verdict of the configuration schema on one discovered definition. */
export type DefinitionVerdict =
  | { readonly ok: true; readonly spec: ServerSpec }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads a discovered definition exactly as the configuration file's `mcp_servers.<name>` entry is
 * read (same schema, same defaults), and builds its `ServerSpec` with `source: 'discovery'`. A
 * problem names the field and the rule. Groups are refused: discovery finds servers only.
 */
export type DefinitionCheck = (
  name: string,
  definition: Readonly<Record<string, unknown>>,
) => DefinitionVerdict;

/**
 * The health probe of a discovered HTTP server: connects and completes the MCP `initialize`
 * handshake, then disconnects. Rejects with a message safe to show when the endpoint does not
 * answer as an MCP server within the probe's time.
 */
export interface EndpointProbe {
  probe(spec: ServerSpec): Promise<void>;
}
