import { type StreamStatus, useGatewaySocket } from "./live.js";

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

/**
 * Follows one server's log lines on `/api/ws/providers/<id>/logs` (docs/websocket.md). Each
 * (re)connection first receives the last 100 lines kept, then every new one; the client sends
 * nothing. A refusal (1008, e.g. an unknown server) is retried slowly and its reason returned.
 */
export function useLogStream(
  serverId: string,
  handlers: LogHandlers,
): { status: StreamStatus; reason: string | null } {
  return useGatewaySocket(`/ws/providers/${encodeURIComponent(serverId)}/logs`, {
    onOpen() {
      handlers.onOpen();
      return true;
    },
    onFrame(frame) {
      if (frame.type === "log") {
        handlers.onLine({
          stream: String(frame.stream ?? ""),
          content: String(frame.content ?? ""),
          recorded_at: Number(frame.recorded_at ?? 0),
        });
      } else if (frame.type === "dropped") handlers.onDropped?.(Number(frame.count ?? 0));
      return false;
    },
  });
}
