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

/** What one kind of stream does on its socket. */
export interface StreamProtocol {
  /** The socket opened; answers whether the stream is live already (else a frame says so). */
  onOpen(socket: WebSocket): boolean;
  /** A frame arrived; answers whether it made the stream live (a subscription confirmed). */
  onFrame(frame: Record<string, unknown>, socket: WebSocket): boolean;
}

/**
 * A WebSocket of the gateway at `/api<path>`, authenticated by the session cookie the browser sends
 * with the handshake, kept open: reconnects with backoff, and retries a refusal (1008: the
 * credentials will not get better on their own) only slowly. The status tells the page whether
 * what it shows is live; the reason, why the gateway closed it. Opened anew when `path` or `key`
 * (what the protocol sends on opening) changes.
 */
export function useGatewaySocket(
  path: string,
  protocol: StreamProtocol,
  key = "",
): { status: StreamStatus; reason: string | null } {
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [reason, setReason] = useState<string | null>(null);
  const current = useRef(protocol);
  current.current = protocol;
  useEffect(() => {
    let socket: WebSocket | null = null;
    let stopped = false;
    let backoff = 500;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const live = () => {
      backoff = 500;
      setStatus("live");
      setReason(null);
    };
    const open = () => {
      setStatus("connecting");
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const opened = new WebSocket(`${scheme}://${location.host}/api${path}`);
      socket = opened;
      opened.onopen = () => {
        if (current.current.onOpen(opened)) live();
      };
      opened.onmessage = (message) => {
        const frame = JSON.parse(String(message.data)) as Record<string, unknown>;
        if (current.current.onFrame(frame, opened)) live();
      };
      opened.onclose = (event) => {
        if (stopped) return;
        setStatus("closed");
        if (event.reason) setReason(event.reason);
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

/**
 * Follows an event stream of the gateway (`/api/ws/events`, `/api/ws/state`): sends `filter` as
 * its subscription (a new filter opens a new connection), answers the server's pings, and hands
 * `onEvent` each event frame.
 */
export function useEventStream(
  path: "/ws/events" | "/ws/state",
  filter: StreamFilter,
  onEvent: (event: EventFrame) => void,
): { status: StreamStatus; reason: string | null } {
  return useGatewaySocket(
    path,
    {
      onOpen(socket) {
        socket.send(JSON.stringify({ type: "subscribe", ...filter }));
        return false;
      },
      onFrame(frame, socket) {
        if (frame.type === "ping") socket.send(JSON.stringify({ type: "pong" }));
        else if (frame.type === "subscribed") return true;
        else if (typeof frame.event_type === "string") onEvent(frame as EventFrame);
        return false;
      },
    },
    JSON.stringify(filter),
  );
}
