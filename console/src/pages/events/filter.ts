import { fnmatch } from "../../../../src/domain/policy/fnmatch.js";
import type { EventFrame } from "../../live.js";

/** What the events page shows: type globs and server ids (also sent to the stream), a principal. */
export interface EventFilter {
  types: string[];
  servers: string[];
  principal: string;
}

export const NO_FILTER: EventFilter = { types: [], servers: [], principal: "" };

/** The stream's limits on a `subscribe` list (docs/websocket.md). */
const MAX_ENTRIES = 100;
const MAX_LENGTH = 256;

/** A list typed as text: entries separated by commas or spaces, duplicates removed. */
export function listOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** Why a list cannot be sent to the stream, in words; null when it can. */
export function listProblem(label: string, list: string[]): string | null {
  if (list.length > MAX_ENTRIES) return `${label}: at most ${MAX_ENTRIES} entries.`;
  if (list.some((entry) => entry.length > MAX_LENGTH)) {
    return `${label}: each entry at most ${MAX_LENGTH} characters.`;
  }
  return null;
}

/**
 * The fields of an event frame that name a principal: who acted (`principal_id`, `caller`,
 * `requested_by`) and who made a change (`created_by`, `decided_by`, ...).
 */
const PRINCIPAL_FIELDS = [
  "principal_id",
  "caller",
  "requested_by",
  "decided_by",
  "attempted_by",
  "created_by",
  "revoked_by",
  "assigned_by",
  "approved_by",
  "rejected_by",
  "deleted_by",
  "deployed_by",
  "suspended_by",
  "resumed_by",
];

/** The principal an event names first, if any. */
export function principalOf(frame: EventFrame): string | null {
  for (const field of PRINCIPAL_FIELDS) {
    const value = frame[field];
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}

/** The server (or group) an event concerns, if any. */
export function serverOf(frame: EventFrame): string | null {
  const value = frame.mcp_server_id ?? frame.group_id;
  return typeof value === "string" ? value : null;
}

/**
 * Whether a frame passes the filter. The stream applies the types and servers itself; they are
 * applied here again to the events received before the filter changed. The principal is matched
 * here only (the stream has no principal filter): exactly, against every principal field.
 */
export function matches(frame: EventFrame, filter: EventFilter): boolean {
  if (filter.types.length > 0 && !filter.types.some((glob) => globMatch(glob, frame.event_type))) {
    return false;
  }
  if (filter.servers.length > 0) {
    const server = frame.mcp_server_id;
    if (typeof server !== "string" || !filter.servers.includes(server)) return false;
  }
  if (filter.principal !== "") {
    return PRINCIPAL_FIELDS.some((field) => frame[field] === filter.principal);
  }
  return true;
}

/**
 * fnmatch, case sensitive, as the stream reads `event_types`: the gateway's own matcher (pure code
 * of its domain, bundled into the console), so the page filters exactly as the stream does. A
 * pattern that does not compile matches nothing.
 */
export function globMatch(glob: string, text: string): boolean {
  try {
    return fnmatch(text, glob);
  } catch {
    return false;
  }
}
