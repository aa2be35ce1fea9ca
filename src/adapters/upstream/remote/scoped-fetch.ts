import { AsyncLocalStorage } from "node:async_hooks";
import type { FetchFunction } from "../../../app/ports/endpoint-guard.js";

/**
 * Headers of the requests one call sends (the trace context of a `tools/call`). The SDK transports
 * take no per-request headers, but they send from within the caller's async context, so the
 * headers travel with it to the fetch below.
 */
const callHeaders = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/** Runs `run` with `headers` set on every request it sends (replacing headers of those names). */
export function withCallHeaders<T>(headers: Readonly<Record<string, string>>, run: () => T): T {
  return callHeaders.run(headers, run);
}

/** What the observer learns about a request; never its headers (they hold credentials). */
export interface RequestFacts {
  readonly method: string;
  /** A GET: both SDK transports use GET only to open an SSE stream. */
  readonly eventStream: boolean;
  /** The request carried an `Mcp-Session-Id` (streamable HTTP after initialize). */
  readonly hasSession: boolean;
  /** JSON-RPC ids of the requests a POST carried: their answers may come in its response body. */
  readonly requestIds: readonly (string | number)[];
}

/** Sees how each request went, to tell a server that went away from one that is busy. */
export interface RequestObserver {
  /** Response headers arrived. */
  response(request: RequestFacts, status: number): void;
  /** The request failed before a response (network, policy, timeout, abort). */
  failure(request: RequestFacts, error: unknown): void;
  /** A response body ended: `error` undefined when the server ended it. Not called for a body the consumer cancelled. */
  bodyEnded(request: RequestFacts, error: unknown): void;
}

export interface ScopedFetchOptions {
  readonly base: FetchFunction;
  /** Added when the request does not already carry the header (MCP's own headers win). */
  readonly headers: Readonly<Record<string, string>>;
  /** Set on every request, replacing any header of the same name. */
  readonly auth?: { readonly name: string; readonly value: string };
  /**
   * Longest silence: before the response headers of any request, and between two chunks of a
   * response body, except an event stream's (a GET), which is quiet while nothing happens.
   */
  readonly readTimeoutMs: number;
  readonly observer?: RequestObserver;
}

/** Statuses whose response can carry no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function timeoutError(message: string): Error {
  const error = new Error(message);
  error.name = "TimeoutError";
  return error;
}

/**
 * One request's own AbortController, linked to the caller's signal and to the read timeout.
 *
 * Why: the SDK transports pass one long-lived AbortSignal to every request, and fetch on Node 20
 * adds an `abort` listener to it per request that is only dropped when the request is garbage
 * collected: listeners pile up (and warn) on a busy session. Here the shared signal gets one
 * listener per request, removed as soon as the request is over (failed, body ended or cancelled).
 */
class ScopedRequest {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private finished = false;
  /** Set when the read timeout fired: the error every consumer sees. */
  timedOut: Error | undefined;

  constructor(
    private readonly outer: AbortSignal | undefined,
    private readonly readTimeoutMs: number,
  ) {
    if (outer?.aborted) this.controller.abort(outer.reason);
    else outer?.addEventListener("abort", this.onOuterAbort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts the silence timer; `what` completes "the server sent nothing ...". */
  arm(what: string): void {
    this.disarm();
    if (this.finished) return;
    this.timer = setTimeout(() => {
      this.timedOut = timeoutError(
        `the server sent ${what} for ${this.readTimeoutMs / 1000} s (http.read_timeout_s)`,
      );
      this.controller.abort(this.timedOut);
    }, this.readTimeoutMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.disarm();
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  private readonly onOuterAbort = (): void => {
    this.controller.abort(this.outer?.reason);
  };
}

/**
 * A fetch for the SDK transports: per-request AbortController (see {@link ScopedRequest}), read
 * timeouts, credentials and extra headers on every request (redirect hops included, which the SDK
 * only follows within the endpoint's origin), and an observer of how requests end.
 */
export function createScopedFetch(options: ScopedFetchOptions): FetchFunction {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(options.headers)) {
      if (!headers.has(name)) headers.set(name, value);
    }
    for (const [name, value] of Object.entries(callHeaders.getStore() ?? {})) headers.set(name, value);
    if (options.auth !== undefined) headers.set(options.auth.name, options.auth.value);
    const method = (init.method ?? "GET").toUpperCase();
    const facts: RequestFacts = {
      method,
      eventStream: method === "GET",
      hasSession: headers.has("mcp-session-id"),
      requestIds: method === "POST" ? requestIdsOf(init.body) : [],
    };
    const request = new ScopedRequest(init.signal ?? undefined, options.readTimeoutMs);
    request.arm("no response");
    let response: Response;
    try {
      response = await options.base(url, { ...init, headers, signal: request.signal });
    } catch (error) {
      request.finish();
      const failure = request.timedOut ?? error;
      options.observer?.failure(facts, failure);
      throw failure;
    }
    request.disarm();
    options.observer?.response(facts, response.status);
    const body = response.body;
    if (body === null || NULL_BODY_STATUSES.has(response.status)) {
      request.finish();
      return response;
    }
    const wrapped = watchBody(body, request, !facts.eventStream, (error) =>
      options.observer?.bodyEnded(facts, error),
    );
    return new Response(wrapped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The ids of the JSON-RPC requests in a POST body (the SDK sends JSON text). */
function requestIdsOf(body: RequestInit["body"]): (string | number)[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const ids: (string | number)[] = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null || !("method" in message)) continue;
    const id = (message as { id?: unknown }).id;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/** Passes `body` through, bounding silence and reporting how it ended; finishes the request then. */
function watchBody(
  body: ReadableStream<Uint8Array>,
  request: ScopedRequest,
  boundSilence: boolean,
  ended: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let settled = false;
  const settle = (error: unknown, cancelled: boolean): void => {
    if (settled) return;
    settled = true;
    request.finish();
    if (!cancelled) ended(error);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (boundSilence) request.arm("nothing");
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const failure = request.timedOut ?? error;
        settle(failure, false);
        try {
          controller.error(failure);
        } catch {
          // Already cancelled by the consumer.
        }
        return;
      } finally {
        request.disarm();
      }
      try {
        if (chunk.done) {
          settle(undefined, false);
          controller.close();
        } else {
          controller.enqueue(chunk.value);
        }
      } catch {
        // The consumer cancelled while the read was pending.
      }
    },
    cancel(reason) {
      settle(undefined, true);
      return reader.cancel(reason);
    },
  });
}
