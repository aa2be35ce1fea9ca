/** Frames a client may send on `/api/ws/events`, and how malformed ones are described. */
export interface StreamFilter {
  /** fnmatch globs over `event_type`; empty means every type. */
  event_types: string[];
  /** Exact `mcp_server_id` values; empty means every server. */
  mcp_server_ids: string[];
}

export type ClientFrame = ({ type: "subscribe" } & StreamFilter) | { type: "pong" } | { type: "ping" };

export type ParsedFrame = { ok: true; frame: ClientFrame } | { ok: false; error: string };

/**
 * Bounds on one subscription, so a client cannot make every published event cost it unbounded
 * matching work. Generous for any real filter.
 */
export const MAX_FILTER_ENTRIES = 100;
export const MAX_FILTER_ENTRY_LENGTH = 256;

/** Longest part of an unknown frame type echoed back in an error. */
const MAX_ECHO = 64;

export function parseClientFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "Frame is not valid JSON" };
  }
  if (!isRecord(value) || typeof value.type !== "string") {
    return { ok: false, error: 'Frame must be a JSON object with a string "type"' };
  }
  switch (value.type) {
    case "pong":
    case "ping":
      return { ok: true, frame: { type: value.type } };
    case "subscribe": {
      const eventTypes = filterList(value, "event_types");
      if (typeof eventTypes === "string") return { ok: false, error: eventTypes };
      const serverIds = filterList(value, "mcp_server_ids");
      if (typeof serverIds === "string") return { ok: false, error: serverIds };
      return { ok: true, frame: { type: "subscribe", event_types: eventTypes, mcp_server_ids: serverIds } };
    }
    default:
      return { ok: false, error: `Unknown frame type "${value.type.slice(0, MAX_ECHO)}"` };
  }
}

/** The list under `key`, or the error text. Absent and `null` both mean the empty list. */
function filterList(frame: Record<string, unknown>, key: string): string[] | string {
  const value = frame[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item.length > 0)) {
    return `"${key}" must be a list of non-empty strings`;
  }
  if (value.length > MAX_FILTER_ENTRIES) return `"${key}" has more than ${MAX_FILTER_ENTRIES} entries`;
  if (value.some((item: string) => item.length > MAX_FILTER_ENTRY_LENGTH)) {
    return `"${key}" entries must be at most ${MAX_FILTER_ENTRY_LENGTH} characters`;
  }
  return [...new Set<string>(value)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
