import type { StreamableHTTPReconnectionOptions } from "@modelcontextprotocol/client";
import type { RequestFacts, RequestObserver } from "./scoped-fetch.js";

export type RemoteTransportKind = "streamable_http" | "sse";

/**
 * How the streamable HTTP transport re-opens its standalone event stream after it dropped: the
 * SDK's defaults, written out because {@link ConnectionWatch} counts the same failed attempts to
 * decide the server is gone (two failed re-opens, 1 s then 1.5 s apart).
 */
export const STREAM_RECONNECTION: StreamableHTTPReconnectionOptions = {
  initialReconnectionDelay: 1_000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/** Whether `error` (or an error it wraps) is a refused TCP connection: nothing listens there. */
export function isConnectionRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if ((current as NodeJS.ErrnoException).code === "ECONNREFUSED") return true;
    current = current.cause;
  }
  return false;
}

/**
 * Decides, from how requests end, that a remote session is over for good, and says why.
 *
 * The session ends when: the server answers 404 to a request carrying the session id (MCP: the
 * client must start a new session); a connection is refused (nothing listens any more); for the
 * old SSE transport, its event stream ends or breaks (that stream is the session); for streamable
 * HTTP, the standalone event stream dropped and the SDK's re-opens failed. Not detected: a
 * streamable HTTP server without a standalone stream that vanishes between requests (the next
 * request tells).
 */
export class ConnectionWatch implements RequestObserver {
  /** Resolves once, with the reason, when the session ended without being closed. */
  readonly ended: Promise<string>;
  /** The last request failure, for a precise message when connecting fails. */
  lastFailure: unknown;
  /**
   * Called when a POST's response body broke (read timeout, reset) before the session ended: the
   * answers to `ids` will never come, and the SDK would wait for them until the call's deadline.
   */
  onRequestsLost: ((ids: readonly (string | number)[], error: unknown) => void) | undefined;
  private resolveEnded: (reason: string) => void = () => {};
  private reason: string | undefined;
  private stopped = false;
  private streamLost = false;
  private reopenFailures = 0;

  constructor(private readonly transport: RemoteTransportKind) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  get endReason(): string | undefined {
    return this.reason;
  }

  /** From now on nothing counts: the connection is being closed on purpose. */
  stop(): void {
    this.stopped = true;
  }

  response(request: RequestFacts, status: number): void {
    if (request.hasSession && status === 404) {
      this.end("the server ended the session (HTTP 404)");
      return;
    }
    if (!this.isReopen(request)) return;
    // 405: the server no longer offers the stream; the SDK stops asking, and so do we.
    if ((status >= 200 && status < 300) || status === 405) {
      this.streamLost = false;
      this.reopenFailures = 0;
      return;
    }
    this.reopenFailed();
  }

  failure(request: RequestFacts, error: unknown): void {
    this.lastFailure = error;
    if (isConnectionRefused(error)) {
      this.end("the server refused the connection");
      return;
    }
    if (this.isReopen(request)) this.reopenFailed();
  }

  bodyEnded(request: RequestFacts, error: unknown): void {
    if (!request.eventStream) {
      if (error !== undefined && request.requestIds.length > 0 && !this.stopped) {
        this.onRequestsLost?.(request.requestIds, error);
      }
      return;
    }
    if (this.transport === "sse") {
      this.end(error === undefined ? "the server closed the event stream" : "the event stream broke");
      return;
    }
    this.streamLost = true;
  }

  private isReopen(request: RequestFacts): boolean {
    return this.transport === "streamable_http" && request.eventStream && this.streamLost;
  }

  private reopenFailed(): void {
    this.reopenFailures += 1;
    if (this.reopenFailures >= STREAM_RECONNECTION.maxRetries) {
      this.end("the event stream dropped and could not be re-opened");
    }
  }

  private end(reason: string): void {
    if (this.stopped || this.reason !== undefined) return;
    this.reason = reason;
    this.resolveEnded(reason);
  }
}
