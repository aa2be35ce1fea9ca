import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ProgressUpdate } from "../../../app/ports/upstream.js";

export interface DirectRequestOptions {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly onProgress?: ((progress: ProgressUpdate) => void) | undefined;
}

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: NodeJS.Timeout;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: (() => void) | undefined;
  readonly onProgress: ((progress: ProgressUpdate) => void) | undefined;
}

/**
 * The requests the gateway relays on the call path (`tools/call` and the front door's other
 * requests), sent and answered beside the SDK client on its transport rather than through it.
 *
 * The SDK's `Protocol` checks every incoming message against its JSON-RPC schemas up to three times
 * (zod, with a failed parse for each kind it is not) and leaves a listener on the request's signal.
 * Here a response is matched by its id and resolves with its `result` as sent (the caller checks
 * it), its error raised as the SDK raises it (`McpError.fromError`); the rest is the SDK's behaviour: the timeout
 * rejects with `RequestTimeout`, an abort rejects with the signal's reason, both tell the upstream
 * with `notifications/cancelled`, progress reaches `onProgress` (its token is the request id), and
 * the end of the connection rejects every request in flight with `ConnectionClosed`.
 *
 * Ids come from `nextId`, a range of its own that the SDK client's count never reaches, so the two
 * never use the same id on the transport. A message is taken only when its id (or progress token)
 * names a request of this lane still in flight, as a number or a string of one (some servers echo
 * ids as strings; the SDK matches them the same way); everything else goes on to the SDK, late
 * answers to requests that timed out or were cancelled included (it drops them).
 */
export class DirectRequests {
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly nextId: () => number,
  ) {}

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: DirectRequestOptions,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const { signal, onProgress } = options;
      if (signal?.aborted) return reject(signal.reason);
      if (this.closed) return reject(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
      const id = this.nextId();
      const sent = onProgress ? withProgressToken(params, id) : params;
      const onAbort = signal ? () => this.cancel(id, signal.reason) : undefined;
      const timer = setTimeout(() => {
        const timeout = McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", {
          timeout: options.timeoutMs,
        });
        this.cancel(id, timeout);
      }, options.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, signal, onAbort, onProgress });
      if (onAbort) signal?.addEventListener("abort", onAbort, { once: true });
      const message = { jsonrpc: "2.0", id, method, ...(sent !== undefined && { params: sent }) };
      this.transport
        .send(message as JSONRPCMessage)
        .catch((error: unknown) => this.remove(id)?.reject(error));
    });
  }

  /**
   * Takes a message the transport read when it belongs to this lane (the answer to one of its
   * requests in flight, or progress of one) and answers whether it did. Progress reaches
   * `onProgress` a microtask later, as the SDK hands over notifications, so that it keeps its
   * place among the notifications read before it; a progress without a numeric `progress` is
   * dropped, as the SDK's schema would drop it.
   */
  take(message: JSONRPCMessage): boolean {
    const record = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown };
    if (record.method === undefined) {
      const id = idOf(record.id);
      const pending = id === undefined ? undefined : this.remove(id);
      if (pending === undefined) return false;
      if ("result" in record) pending.resolve(record.result);
      else pending.reject(errorOf((message as { error?: unknown }).error));
      return true;
    }
    if (record.method !== "notifications/progress") return false;
    const { progressToken, ...progress } = (record.params ?? {}) as Record<string, unknown>;
    const token = idOf(progressToken);
    const pending = token === undefined ? undefined : this.pending.get(token);
    if (pending === undefined) return false;
    const onProgress = pending.onProgress;
    if (onProgress && typeof progress.progress === "number") {
      queueMicrotask(() => {
        try {
          onProgress(progress as unknown as ProgressUpdate);
        } catch {
          // A failing listener loses its progress, never the call or the transport's reading.
        }
      });
    }
    return true;
  }

  /** The connection ended: every request in flight rejects as the SDK's do, later ones at once. */
  close(): void {
    this.closed = true;
    const error = McpError.fromError(ErrorCode.ConnectionClosed, "Connection closed");
    for (const id of [...this.pending.keys()]) this.remove(id)?.reject(error);
  }

  /** Gives up a request: the upstream is told why, and the caller gets `reason` as its error. */
  private cancel(id: number, reason: unknown): void {
    const pending = this.remove(id);
    if (pending === undefined) return;
    const cancelled = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason: String(reason) },
    };
    this.transport.send(cancelled as JSONRPCMessage).catch(() => {});
    pending.reject(reason);
  }

  /** Removes a request from those in flight, with its timer and listener. */
  private remove(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.signal?.removeEventListener("abort", pending.onAbort);
    return pending;
  }
}

/** A JSON-RPC id as an integer: a number, or a string of one. */
function idOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
  return typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

function withProgressToken(params: Record<string, unknown> | undefined, id: number): Record<string, unknown> {
  const meta = params?._meta;
  const own = typeof meta === "object" && meta !== null ? meta : {};
  return { ...params, _meta: { ...own, progressToken: id } };
}

/** The error an SDK client raises for an error response. */
function errorOf(error: unknown): McpError {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return McpError.fromError(
    typeof code === "number" ? code : ErrorCode.InternalError,
    typeof message === "string" ? message : "",
    data,
  );
}
