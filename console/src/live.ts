import { useEffect, useRef, useState } from "preact/hooks";

/** An event frame of `/api/ws/events` (docs/websocket.md): the event's fields and its envelope. */
export interface EventFrame {
  event_type: string;
  event_id: string;
  occurred_at: number;
  produced_by: string;
  [field: string]: unknown;
}

export interface StreamFilter {
  event_types?: string[];
  mcp_server_ids?: string[];
}

export type StreamStatus = "connecting" | "live" | "closed";

/** The event stream as the session's `allowed_routes` names it: a page asks `useCan()` before following it. */
export const EVENT_STREAM_ROUTE = "GET /ws/events";

/** Longest wait between reconnection attempts. */
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows a WebSocket stream of the gateway (`/api/ws/events`, `/api/ws/state`), authenticated by
 * the session cookie the browser sends with the handshake. Reconnects with backoff; answers the
 * server's pings; sends `filter` as its subscription. `onEvent` gets each event frame. The status
 * tells the page whether what it shows is live; the close reason, when the gateway refused.
 */
export function useEventStream(
  path: "/ws/events" | "/ws/state",
  filter: StreamFilter,
  onEvent: (event: EventFrame) => void,
): { status: StreamStatus; reason: string | null } {
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [reason, setReason] = useState<string | null>(null);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = JSON.stringify(filter);
  useEffect(() => {
    let socket: WebSocket | null = null;
    let stopped = false;
    let backoff = 500;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      setStatus("connecting");
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}/api${path}`);
      socket.onopen = () => {
        socket?.send(JSON.stringify({ type: "subscribe", ...JSON.parse(key) }));
      };
      socket.onmessage = (message) => {
        const frame = JSON.parse(String(message.data)) as Record<string, unknown>;
        if (frame.type === "ping") socket?.send(JSON.stringify({ type: "pong" }));
        else if (frame.type === "subscribed") {
          backoff = 500;
          setStatus("live");
          setReason(null);
        } else if (typeof frame.event_type === "string") handler.current(frame as EventFrame);
      };
      socket.onclose = (event) => {
        if (stopped) return;
        setStatus("closed");
        if (event.reason) setReason(event.reason);
        // A refusal (1008) is not retried quickly: the credentials will not get better on their own.
        const wait = event.code === 1008 ? MAX_BACKOFF_MS : backoff;
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        timer = setTimeout(open, wait);
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, [path, key]);
  return { status, reason };
}
