/**
 * The part of a `ws` WebSocket the event stream uses. `ws` ships no type declarations and the
 * project does not depend on `@types/ws`, so the edge names the surface it relies on here; the
 * socket `@fastify/websocket` hands over satisfies it.
 */
export interface StreamSocket {
  readonly readyState: number;
  /** Bytes accepted by `send` but not yet written to the operating system. */
  readonly bufferedAmount: number;
  /** `callback` runs once the frame is written out (or with an error when it never will be). */
  send(data: string, callback?: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "message", listener: (data: unknown, isBinary: boolean) => void): unknown;
  on(event: "close", listener: (code: number, reason: unknown) => void): unknown;
}

/** Ready states of the `ws` package (the WHATWG values). */
export const SOCKET_OPEN = 1;
export const SOCKET_CLOSED = 3;

/** Close codes of RFC 6455 §7.4.1 used by the stream. */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_POLICY_VIOLATION = 1008;

/** RFC 6455 §5.5: a control frame carries at most 125 bytes, two of them the close code. */
const MAX_REASON_BYTES = 123;

/** A close reason cut to what a close frame can carry, without splitting a UTF-8 sequence. */
export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= MAX_REASON_BYTES) return text;
  let out = "";
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > MAX_REASON_BYTES - 3) break;
    out += char;
    bytes += size;
  }
  return `${out}...`;
}
