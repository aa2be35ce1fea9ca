import { remainingTtlSeconds } from "../../domain/discovery/pending-ttl.js";
import type { PendingEntry, QuarantineEntry, SourceRecord } from "./discovery-state.js";

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** Spec 1 "Discovery source" listing fields; `config` is never shown. */
export interface SourceView {
  id: string;
  source_type: string;
  mode: string;
  is_healthy: boolean;
  is_enabled: boolean;
  last_discovery: string | null;
  mcp_servers_count: number;
  error_message: string | null;
}

export function sourceView(record: SourceRecord): SourceView {
  return {
    id: record.id,
    source_type: record.type,
    mode: record.mode,
    is_healthy: record.isHealthy,
    is_enabled: record.enabled,
    last_discovery: record.lastDiscovery === null ? null : iso(record.lastDiscovery),
    mcp_servers_count: record.registered.size,
    error_message: record.errorMessage,
  };
}

/** Spec 1 pending entry (`GET /discovery/pending`). */
export interface PendingView {
  name: string;
  source_type: string;
  mode: string;
  connection_info: Record<string, unknown>;
  fingerprint: string;
  ttl_seconds: number;
}

export function pendingView(entry: PendingEntry, nowMs: number, ttlSeconds: number): PendingView {
  return {
    name: entry.name,
    source_type: entry.sourceType,
    mode: entry.mode,
    connection_info: { ...entry.connectionInfo },
    fingerprint: entry.fingerprint,
    ttl_seconds: remainingTtlSeconds(entry.lastSeenAt, nowMs, ttlSeconds),
  };
}

/** Spec 2 `gateway_discovered` entry: `source` is the source id. */
export interface ToolPendingView {
  name: string;
  source: string;
  mode: string;
  discovered_at: string;
  fingerprint: string;
}

export function toolPendingView(entry: PendingEntry): ToolPendingView {
  return {
    name: entry.name,
    source: entry.sourceId,
    mode: entry.mode,
    discovered_at: iso(entry.discoveredAt),
    fingerprint: entry.fingerprint,
  };
}

/** Spec 3 `gateway_quarantine` entry, keyed by name. */
export interface QuarantineView {
  source_type: string;
  reason: string;
  quarantined_at: string;
  connection_info: Record<string, unknown>;
  fingerprint: string;
}

export function quarantineView(entry: QuarantineEntry): QuarantineView {
  return {
    source_type: entry.sourceType,
    reason: entry.reason,
    quarantined_at: iso(entry.quarantinedAt),
    connection_info: { ...entry.connectionInfo },
    fingerprint: entry.fingerprint,
  };
}
