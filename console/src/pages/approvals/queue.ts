import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.js";
import { messageOf } from "../../components/data.js";
import { type EventFrame, type StreamStatus, useEventStream } from "../../live.js";

/** The approval object of `GET /api/approvals` (docs/approvals.md); `arguments` already redacted. */
export interface Approval {
  approval_id: string;
  mcp_server_id: string;
  tool_name: string;
  arguments: Record<string, unknown>;
  arguments_hash: string;
  state: "pending" | "approved" | "denied" | "expired" | "cancelled";
  channel: string;
  requested_at: number;
  expires_at: number;
  expires_in_seconds: number;
  requested_by: string | null;
  tenant_id: string | null;
  decided_by: string | null;
  decided_at: number | null;
  reason: string | null;
}

export const DECIDED_STATES = ["approved", "denied", "expired", "cancelled"] as const;

/** The events that move an approval: one asks for it, the others take it out of `pending`. */
const REQUESTED = "ToolApprovalRequested";
const APPROVAL_EVENTS = [
  REQUESTED,
  "ToolApprovalGranted",
  "ToolApprovalDenied",
  "ToolApprovalExpired",
  "ToolApprovalCancelled",
];

/** How long the lists wait after an event before reading the API again, so a burst reads once. */
const RELOAD_DEBOUNCE_MS = 150;
/** Without the event stream (no `audit:read`, or the stream is down), the lists are read this often. */
const POLL_MS = 10_000;

export interface Queue {
  pending: Approval[] | null;
  decided: Approval[] | null;
  error: string | null;
  stream: { status: StreamStatus; reason: string | null };
  reload: () => void;
}

/**
 * The pending approvals and the decided ones, kept current from `/api/ws/events`: a requested
 * approval is added from its event at once, a decided one removed, and both lists are then read
 * again from the API. When the stream is not live, the lists are read every few seconds instead.
 */
export function useApprovalQueue(): Queue {
  const [pending, setPending] = useState<Approval[] | null>(null);
  const [decided, setDecided] = useState<Approval[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Only the newest read's answer is kept: an older one that comes back late is stale.
  const round = useRef(0);
  const load = useCallback(async () => {
    const mine = ++round.current;
    try {
      const [open, ...closed] = await Promise.all(
        ["pending", ...DECIDED_STATES].map((state) => api<Approval[]>("GET", `/approvals?state=${state}`)),
      );
      if (mine !== round.current) return;
      setPending(open ?? []);
      setDecided(closed.flat().sort((a, b) => decidedAt(b) - decidedAt(a)));
      setError(null);
    } catch (failure) {
      if (mine === round.current) setError(messageOf(failure));
    }
  }, []);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reload = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), RELOAD_DEBOUNCE_MS);
  }, [load]);
  useEffect(() => {
    void load();
    return () => clearTimeout(timer.current);
  }, [load]);
  const onEvent = useCallback(
    (event: EventFrame) => {
      const id = String(event.approval_id ?? "");
      // A read already under way may have been answered before this event: its answer is stale.
      round.current++;
      setPending((list) => {
        if (!list) return list;
        const rest = list.filter((entry) => entry.approval_id !== id);
        return event.event_type === REQUESTED ? [...rest, fromRequest(event)] : rest;
      });
      reload();
    },
    [reload],
  );
  const stream = useEventStream("/ws/events", { event_types: APPROVAL_EVENTS }, onEvent);
  useEffect(() => {
    if (stream.status !== "closed") return;
    const poll = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(poll);
  }, [stream.status, load]);
  return { pending, decided, error, stream, reload };
}

function decidedAt(approval: Approval): number {
  return approval.decided_at ?? approval.requested_at;
}

/** A pending approval as its `ToolApprovalRequested` event describes it (arguments redacted). */
function fromRequest(event: EventFrame): Approval {
  const field = (name: string) => (typeof event[name] === "string" ? (event[name] as string) : null);
  const expiresAt = Number(event.expires_at);
  return {
    approval_id: String(event.approval_id),
    mcp_server_id: String(event.mcp_server_id),
    tool_name: String(event.tool_name),
    arguments: (event.arguments ?? {}) as Record<string, unknown>,
    arguments_hash: field("arguments_hash") ?? "",
    state: "pending",
    channel: field("channel") ?? "",
    requested_at: event.occurred_at,
    expires_at: expiresAt,
    expires_in_seconds: Math.max(0, Math.ceil(expiresAt - Date.now() / 1000)),
    requested_by: field("requested_by"),
    tenant_id: field("tenant_id"),
    decided_by: null,
    decided_at: null,
    reason: null,
  };
}
