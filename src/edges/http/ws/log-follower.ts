import type { LogLine, LogRing } from "../../../app/fleet/log-ring.js";
import { SOCKET_OPEN, type StreamSocket } from "./socket.js";

/** Lines already kept that a new connection receives first. */
export const BACKLOG_LINES = 100;
/** Bytes a slow client may leave unread before lines are dropped for it. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * Sends a server's log lines on `socket`, one JSON text frame each
 * (`{type:"log", mcp_server_id, stream, content, recorded_at}`): the last {@link BACKLOG_LINES}
 * kept, then every new one, until the socket closes. A client that leaves more than 1 MiB unread
 * loses lines; the next frame it gets is `{type:"dropped", count}`.
 */
export function followLogs(socket: StreamSocket, serverId: string, logs: LogRing): void {
  let dropped = 0;
  const send = (line: LogLine) => {
    if (socket.readyState !== SOCKET_OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      dropped++;
      return;
    }
    if (dropped > 0) {
      socket.send(JSON.stringify({ type: "dropped", count: dropped }));
      dropped = 0;
    }
    socket.send(JSON.stringify({ type: "log", mcp_server_id: serverId, ...line }));
  };
  for (const line of logs.tail(BACKLOG_LINES)) send(line);
  const unwatch = logs.watch(send);
  socket.on("close", () => unwatch());
}
