import {
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type Transport,
} from "@modelcontextprotocol/client";
import type { ProgressUpdate } from "../../../app/ports/upstream.js";

/** Most tasks whose progress is followed per connection. */
const MAX_FOLLOWED_TASKS = 1000;

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

/** Statuses after which a task sends no more progress (MCP tasks). */
const TERMINAL_TASK_STATUSES: ReadonlySet<unknown> = new Set(["completed", "failed", "cancelled"]);

/**
 * The requests the gateway relays on the call path (`tools/call` and the front door's other
 * requests), sent and answered beside the SDK client on its transport rather than through it.
 *
 * The SDK's `Protocol` checks every incoming message against its JSON-RPC schemas several times
 * (zod, with a failed parse for each kind it is not), passes results through the codec of its
 * protocol era and leaves a listener on the request's signal. Here a response is matched by its id
 * and resolves with its `result` as sent (the caller checks it), its error raised as a
 * `ProtocolError` with the code, message and data as sent; the timeout rejects with the SDK's
 * `RequestTimeout` error, an abort rejects with the signal's reason, both tell the upstream with
 * `notifications/cancelled`, progress reaches `onProgress` (its token is the request id), and the
 * end of the connection rejects every request in flight with the SDK's `ConnectionClosed` error.
 * A task-augmented request answered with a task (MCP tasks) keeps its progress listener until the
 * upstream reports the task finished, since the task's progress comes after that first answer.
 *
 * Ids come from `nextId`, a range of its own that the SDK client's count never reaches, so the two
 * never use the same id on the transport. A message is taken only when its id (or progress token)
 * names a request of this lane still in flight, as a number or a string of one (some servers echo
 * ids as strings; the SDK matches them the same way); everything else goes on to the SDK, late
 * answers to requests that timed out or were cancelled included (it drops them).
 */
export class DirectRequests {
  private readonly pending = new Map<number, Pending>();
  /** Progress listeners of tasks still running, by progress token, with the task's id. */
  private readonly tasks = new Map<
    number,
    { taskId: string; onProgress: (progress: ProgressUpdate) => void }
  >();
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
      if (this.closed) return reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
      const id = this.nextId();
      const sent = onProgress ? withProgressToken(params, id) : params;
      const onAbort = signal ? () => this.cancel(id, signal.reason) : undefined;
      const timer = setTimeout(() => {
        const timeout = new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", {
          timeout: options.timeoutMs,
        });
        this.cancel(id, timeout);
      }, options.timeoutMs);
      const settle = onProgress ? (result: unknown) => this.followTask(id, result, onProgress) : undefined;
      const resolved = settle
        ? (result: unknown) => {
            settle(result);
            resolve(result);
          }
        : resolve;
      this.pending.set(id, { resolve: resolved, reject, timer, signal, onAbort, onProgress });
      if (onAbort) signal?.addEventListener("abort", onAbort, { once: true });
      const message = { jsonrpc: "2.0", id, method, ...(sent !== undefined && { params: sent }) };
      this.transport
        .send(message as JSONRPCMessage)
        .catch((error: unknown) => this.remove(id)?.reject(error));
    });
  }

  /**
   * Takes a message the transport read when it belongs to this lane (the answer to one of its
   * requests in flight, or progress of one or of a task one started) and answers whether it did.
   * Progress reaches `onProgress` a microtask later, as the SDK hands over notifications, so that
   * it keeps its place among the notifications read before it; a progress without a numeric
   * `progress` is dropped, as the SDK's schema would drop it. A task's status is only looked at
   * (it goes on to the SDK).
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
    if (record.method === "notifications/tasks/status") {
      if (this.tasks.size > 0) this.taskStatus(record.params);
      return false;
    }
    if (record.method !== "notifications/progress") return false;
    const { progressToken, ...progress } = (record.params ?? {}) as Record<string, unknown>;
    const token = idOf(progressToken);
    const listener = token === undefined ? undefined : (this.pending.get(token) ?? this.tasks.get(token));
    if (listener === undefined) return false;
    const onProgress = listener.onProgress;
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
    this.tasks.clear();
    const error = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    for (const id of [...this.pending.keys()]) this.remove(id)?.reject(error);
  }

  /** Keeps the progress listener of a request answered with a task (`{task: {taskId}}`). */
  private followTask(id: number, result: unknown, onProgress: (progress: ProgressUpdate) => void): void {
    const task = (result as { task?: { taskId?: unknown } } | null)?.task;
    if (typeof task !== "object" || task === null || typeof task.taskId !== "string") return;
    // An upstream that never reports a task finished (its clients poll) leaves its listeners here:
    // the oldest goes once this many are kept.
    if (this.tasks.size >= MAX_FOLLOWED_TASKS) this.tasks.delete(this.tasks.keys().next().value as number);
    this.tasks.set(id, { taskId: task.taskId, onProgress });
  }

  /** Drops the progress listener of a task the upstream reports finished. */
  private taskStatus(params: unknown): void {
    const { taskId, status } = (params ?? {}) as { taskId?: unknown; status?: unknown };
    if (!TERMINAL_TASK_STATUSES.has(status)) return;
    for (const [token, task] of this.tasks) if (task.taskId === taskId) this.tasks.delete(token);
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

/**
 * The error of an error response: its code, message and data as sent. Built directly rather than
 * through `ProtocolError.fromError`, which turns some codes into others (a -32002 naming a URI
 * becomes -32602) and drops data it does not know.
 */
function errorOf(error: unknown): ProtocolError {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return new ProtocolError(
    typeof code === "number" ? code : ProtocolErrorCode.InternalError,
    typeof message === "string" ? message : "",
    data,
  );
}
