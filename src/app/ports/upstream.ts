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
  close(): Promise<void>;
  onClosed(listener: (reason: string) => void): void;
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
