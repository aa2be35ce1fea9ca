import { useEffect, useRef, useState } from "preact/hooks";
import type { StreamStatus } from "./live.js";

/** A line a server wrote outside the protocol (its stderr, or the gateway's notes about it). */
export interface LogLine {
  stream: string;
  content: string;
  /** Epoch seconds. */
  recorded_at: number;
}

export interface LogHandlers {
  /** The connection opened: the last lines kept follow, then every new one. */
  onOpen: () => void;
  onLine: (line: LogLine) => void;
  /** Lines the gateway could not send because this client read too slowly. */
  onDropped?: (count: number) => void;
}

/** Longest wait between reconnection attempts. */
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows one server's log lines on `/api/ws/providers/<id>/logs` (docs/websocket.md), the session
 * cookie authenticating the handshake. Each (re)connection first receives the last 100 lines kept,
 * then every new one; the client sends nothing. Reconnects with backoff; a refusal (1008, e.g. an
 * unknown server) is retried slowly and its reason returned.
 */
export function useLogStream(
  serverId: string,
  handlers: LogHandlers,
): { status: StreamStatus; reason: string | null } {
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [reason, setReason] = useState<string | null>(null);
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    let socket: WebSocket | null = null;
    let stopped = false;
    let backoff = 500;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      setStatus("connecting");
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(
        `${scheme}://${location.host}/api/ws/providers/${encodeURIComponent(serverId)}/logs`,
      );
      socket.onopen = () => {
        backoff = 500;
        setStatus("live");
        setReason(null);
        current.current.onOpen();
      };
      socket.onmessage = (message) => {
        const frame = JSON.parse(String(message.data)) as Record<string, unknown>;
        if (frame.type === "log") {
          current.current.onLine({
            stream: String(frame.stream ?? ""),
            content: String(frame.content ?? ""),
            recorded_at: Number(frame.recorded_at ?? 0),
          });
        } else if (frame.type === "dropped") current.current.onDropped?.(Number(frame.count ?? 0));
      };
      socket.onclose = (event) => {
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
  }, [serverId]);
  return { status, reason };
}
