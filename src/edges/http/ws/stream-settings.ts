import { CREDENTIAL_RECHECK_MS } from "../credential-recheck.js";

/**
 * Timings and bounds of `/api/ws/events`. The defaults are the decisions document's
 * ("WebSocket /api/ws/events"); tests shrink the timings to milliseconds.
 */
export interface StreamTimings {
  /** How long a new connection holds events back waiting for an optional first `subscribe`. */
  subscribeWindowMs: number;
  /** Silence from the client (no frame received) after which the server sends `{type:"ping"}`. */
  idleMs: number;
  /** How long the server waits for `{type:"pong"}` before closing the connection. */
  pongTimeoutMs: number;
  /**
   * After the server sends a close frame, how long the peer has to answer before the socket is
   * destroyed; `ws` would otherwise wait 30 s, which would hold up a shutdown on a dead peer.
   */
  closeGraceMs: number;
  /**
   * How often an open connection's handshake is judged again from its request: a connection whose
   * credential was revoked or expired, or whose principal lost `audit:read`, is closed.
   */
  recheckMs: number;
}

export interface StreamLimits {
  /** Event frames held per connection; when full the oldest is dropped and counted. */
  queueCapacity: number;
  /**
   * Bytes the socket may hold unwritten before the connection stops handing it frames and waits
   * for the writes to complete; above it frames wait in the bounded queue instead, where drops
   * are counted, rather than in an unbounded socket buffer.
   */
  highWaterMarkBytes: number;
  /**
   * Replies (`subscribed`, `error`, `pong`) waiting to be written. A client that keeps sending
   * without reading would otherwise grow them without bound; past it the connection is closed.
   */
  maxPendingReplies: number;
}

export const DEFAULT_TIMINGS: StreamTimings = Object.freeze({
  subscribeWindowMs: 5_000,
  idleMs: 55_000,
  pongTimeoutMs: 10_000,
  closeGraceMs: 2_000,
  recheckMs: CREDENTIAL_RECHECK_MS,
});

export const DEFAULT_LIMITS: StreamLimits = Object.freeze({
  queueCapacity: 1_024,
  // 1 MiB: hundreds of typical event frames in flight, small beside a connection's memory.
  highWaterMarkBytes: 1024 * 1024,
  maxPendingReplies: 128,
});
