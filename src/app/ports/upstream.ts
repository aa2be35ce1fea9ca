import type { ServerSpec, ToolSchema } from "../../domain/server/server-spec.js";

/** One content block of a tool result, as MCP defines it (text, image, resource, ...). */
export type ContentBlock = { type: string } & Record<string, unknown>;

/** The result of `tools/call` as the upstream returned it. */
export interface ToolCallResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface CallOptions {
  /** Aborts the call (caller went away, batch cancelled, shutdown). */
  signal?: AbortSignal;
  /** Upper bound in milliseconds; the connection rejects with a timeout error past it. */
  timeoutMs: number;
  /** Receives the upstream's `notifications/progress` for this request (front door relay). */
  onProgress?: (progress: ProgressUpdate) => void;
  /** Further request parameters relayed as given (`task`, `_meta`), never `name` or `arguments`. */
  extraParams?: Record<string, unknown>;
  /**
   * W3C trace context (`traceparent`, `tracestate`) of the call's span, for `tools/call` only:
   * HTTP upstreams get it as request headers, the others as keys of `params._meta` (merged into a
   * `_meta` the caller sent, whose other keys stay).
   */
  traceContext?: Readonly<Record<string, string>> | undefined;
  /**
   * The client capabilities of the client the request came from (its `initialize`, or a stateless
   * request's `_meta`): an upstream of revision 2026-07-28 is told those of them the gateway relays.
   */
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Asks the client this request came from what an upstream of revision 2026-07-28 asks in its
   * `input_required` answer to this very request (the peer otherwise, which can only guess the
   * client by the upstream's requests in flight).
   */
  askClient?: AskClient | undefined;
}

/** Asks a client one request an upstream makes of it (`key`: the upstream's input key, if any). */
export type AskClient = (
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
  key?: string,
) => Promise<Record<string, unknown>>;

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Where a connection sends what the upstream initiates (front door): notifications it emits and
 * requests it makes of the client (sampling, elicitation, roots). Without a peer, requests are
 * refused as unsupported and notifications dropped.
 */
export interface UpstreamPeer {
  notification(method: string, params: Record<string, unknown> | undefined): void;
  /**
   * `key`: the input key an upstream of revision 2026-07-28 named the request by in its
   * `input_required` result (a stateless client is asked under the same key).
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
    key?: string,
  ): Promise<Record<string, unknown>>;
}

/**
 * What a call on an {@link UpstreamConnection} rejects with when the connection ended under it (the
 * process exited, the remote hung up, or the connection was closed): the call was not answered.
 */
export class UpstreamConnectionLost extends Error {
  override readonly name = "UpstreamConnectionLost";
}

/**
 * A live MCP client session with one upstream server, after `initialize` succeeded.
 *
 * Guarantees: `close()` is idempotent and, for local modes, returns only once the process (and its
 * process group) is gone. `onClosed` listeners fire once, only when the connection ends without
 * `close()` (crash, remote hang-up). Not guaranteed: ordering between concurrent calls.
 */
export interface UpstreamConnection {
  listTools(options: CallOptions): Promise<ToolSchema[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult>;
  /** The capabilities the server declared at `initialize`. */
  readonly serverCapabilities: Record<string, unknown>;
  /** The protocol revision `initialize` settled on (`2025-11-25` ...); undefined when not known. */
  readonly protocolVersion?: string | undefined;
  /** Any other request (resources, prompts, completion, logging, tasks), its result as sent. */
  relay(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** Sends a client notification (`notifications/roots/list_changed`). */
  notify(method: string, params: Record<string, unknown> | undefined): Promise<void>;
  /** Replaces the receiver of server-initiated messages; null drops them. */
  setPeer(peer: UpstreamPeer | null): void;
  close(): Promise<void>;
  onClosed(listener: (reason: string) => void): void;
}

/** How a server's process (or container) ended, when a start failed because it did. */
export interface ProcessExit {
  /** The exit code; null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it (`SIGKILL`); null when it exited by itself. */
  readonly signal: string | null;
}

/**
 * What a factory's `connect` rejects with when the server's process or container ended before
 * `initialize` completed: the message is safe to show, `exit` says how it ended.
 */
export class UpstreamStartFailure extends Error {
  override readonly name = "UpstreamStartFailure";

  constructor(
    message: string,
    readonly exit: ProcessExit,
  ) {
    super(message);
  }
}

/** Receives lines a server writes outside the protocol (stderr of a child process). */
export interface LogSink {
  append(stream: "stderr" | "stdout", line: string): void;
}

export interface ConnectOptions {
  timeoutMs: number;
  /** Aborts the attempt (the server was stopped meanwhile): whatever was started is torn down. */
  signal?: AbortSignal;
}

/** Opens connections for one mode. Rejects with an Error whose message is safe to show. */
export interface UpstreamFactory {
  connect(spec: ServerSpec, logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection>;
}
