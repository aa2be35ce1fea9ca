import type { DiscoveryMode, DiscoverySourceKind } from "../../domain/discovery/discovery-mode.js";
import type { DiscoverySource } from "../ports/discovery-source.js";

/** One source the service knows. */
export interface SourceRecord {
  readonly id: string;
  readonly type: DiscoverySourceKind;
  mode: DiscoveryMode;
  enabled: boolean;
  config: Readonly<Record<string, unknown>>;
  /**
   * Declared in the configuration file: listed and run by the cycle. A source registered through
   * `POST /discovery/sources` is kept for the per-source routes only (spec 1 "Discovery").
   */
  readonly configured: boolean;
  /** The adapter; absent for a source registered through REST (never run). */
  source?: DiscoverySource;
  /** Epoch milliseconds of the last scan that succeeded; null until then. */
  lastDiscovery: number | null;
  errorMessage: string | null;
  isHealthy: boolean;
  /** Servers this source registered: name -> fingerprint registered. */
  readonly registered: Map<string, string>;
  /** Times (epoch ms) of its registrations in the last minute. */
  rateHistory: readonly number[];
  stopWatch?: () => void;
}

/** A discovered server that is not registered, as the cycle last saw it. */
interface HeldEntry {
  readonly name: string;
  readonly sourceId: string;
  readonly sourceType: DiscoverySourceKind;
  readonly mode: DiscoveryMode;
  readonly definition: Readonly<Record<string, unknown>>;
  readonly group?: string | undefined;
  readonly connectionInfo: Readonly<Record<string, unknown>>;
  readonly fingerprint: string;
  /** Epoch milliseconds: the scan that last reported it, for the TTL. */
  lastSeenAt: number;
}

/** Waiting with auto-registration off (`gateway_discovered`, `GET /discovery/pending`). */
export interface PendingEntry extends HeldEntry {
  /** Epoch milliseconds of the first sighting of this definition. */
  readonly discoveredAt: number;
}

/** Held for an operator (`gateway_quarantine`, `GET /discovery/quarantined`). */
export interface QuarantineEntry extends HeldEntry {
  /** `<code>: <detail>`, the code one of QUARANTINE_REASONS. */
  readonly reason: string;
  readonly quarantinedAt: number;
}

/**
 * Why a discovered server is quarantined: its definition fails the configuration schema, its name
 * belongs to another server, its source holds `max_servers_per_source` already, its source
 * registered `max_registrations_per_minute` in the last minute, its HTTP endpoint did not answer
 * the MCP handshake, or it waited in pending and awaits an operator's approval.
 */
export const QUARANTINE_REASONS = [
  "invalid_definition",
  "name_conflict",
  "source_limit",
  "rate_limited",
  "health_check_failed",
  "awaiting_approval",
] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/**
 * Reasons that pass by themselves (a source under its cap again, the rate window slid on, an
 * endpoint that answers now): a server quarantined for one of them is tried again by the next
 * cycle that still finds it. The others wait for an operator or a changed definition.
 */
export const RETRIED_REASONS: ReadonlySet<QuarantineReason> = new Set([
  "source_limit",
  "rate_limited",
  "health_check_failed",
]);

/** The reason code of an entry (`<code>: <detail>`). */
export function reasonCode(entry: QuarantineEntry): string {
  return entry.reason.slice(0, entry.reason.indexOf(":"));
}

/** One source's share of a cycle, in `gateway_discover`'s `source_results`. */
export interface SourceResult {
  source_type: DiscoverySourceKind;
  mcp_servers_found: number;
  registered: number;
  updated: number;
  deregistered: number;
  quarantined: number;
  pending: number;
  /** Items the source could not read, failed validations dropped, the scan's own failure. */
  errors: string[];
}

/** The answer of `gateway_discover` (spec 2 §4). */
export interface CycleReport {
  discovered_count: number;
  registered_count: number;
  updated_count: number;
  deregistered_count: number;
  quarantined_count: number;
  error_count: number;
  duration_ms: number;
  source_results: Record<string, SourceResult>;
}
