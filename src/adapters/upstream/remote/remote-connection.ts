import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { HttpClient } from "../../../app/ports/endpoint-guard.js";
import type { CallOptions, ToolCallResult, UpstreamConnection } from "../../../app/ports/upstream.js";
import type { ToolSchema } from "../../../domain/server/server-spec.js";
import type { ConnectionWatch, RemoteTransportKind } from "./connection-watch.js";
import { requestFailure } from "./failure-messages.js";

/**
 * Most `tools/list` pages followed. A server whose cursors never end would otherwise keep the call
 * busy until its deadline; 100 pages is far more than any real server needs.
 */
const MAX_TOOL_PAGES = 100;

/**
 * Longest wait for the server to answer the DELETE that ends a streamable HTTP session. A server
 * answers at once; past 2 s stopping goes on without the answer (the session expires there).
 */
export const TERMINATE_TIMEOUT_MS = 2_000;

export interface RemoteConnectionParts {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport | SSEClientTransport;
  readonly kind: RemoteTransportKind;
  readonly watch: ConnectionWatch;
  readonly http: HttpClient;
  /** `host:port` of the endpoint, for messages. */
  readonly host: string;
  readonly secrets: readonly string[];
}

/**
 * An initialized MCP session with a remote server, over streamable HTTP or the old SSE transport.
 *
 * Guaranteed: `close()` is idempotent; it ends a streamable HTTP session with a DELETE (bounded by
 * {@link TERMINATE_TIMEOUT_MS}) and resolves once every socket of the session is destroyed.
 * `onClosed` listeners run once with the reason when the session ends without `close()` (see
 * {@link ConnectionWatch} for what counts), including a listener added after that happened; the
 * session is torn down first. Calls reject with: the signal's reason when aborted; an Error named
 * `TimeoutError` past `timeoutMs` or past `http.read_timeout_s` of silence; an Error naming the
 * reason when the session ends mid-call; the server's JSON-RPC error otherwise. No message carries
 * a credential. Not guaranteed: ordering between concurrent calls.
 */
export class RemoteConnection implements UpstreamConnection {
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private teardown: Promise<void> | undefined;
  private endedWithoutClose: string | undefined;
  private readonly listeners: Array<(reason: string) => void> = [];

  constructor(private readonly parts: RemoteConnectionParts) {
    void parts.watch.ended.then((reason) => this.endUnasked(reason));
  }

  /** Which transport the session uses (`auto` settles on one of them). */
  get transportKind(): RemoteTransportKind {
    return this.parts.kind;
  }

  /** The streamable HTTP session id, for diagnostics and tests. */
  get sessionId(): string | undefined {
    const transport = this.parts.transport;
    return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
  }

  async listTools(options: CallOptions): Promise<ToolSchema[]> {
    const deadline = performance.now() + options.timeoutMs;
    const tools: ToolSchema[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const timeout = Math.max(1, deadline - performance.now());
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.guard("tools/list", options, () =>
        this.parts.client.listTools(params, { signal: options.signal, timeout }),
      );
      for (const tool of result.tools) tools.push(toToolSchema(tool));
      if (!result.nextCursor || result.nextCursor === cursor) return tools;
      cursor = result.nextCursor;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    // A plain request, not `client.callTool`: the gateway passes results through as the upstream
    // sent them, and the SDK helper would reject structured content its output schema disowns.
    const result = await this.guard("tool call", options, () =>
      this.parts.client.request(
        { method: "tools/call", params: { name, arguments: args } },
        CallToolResultSchema,
        { signal: options.signal, timeout: options.timeoutMs },
      ),
    );
    const content = Array.isArray(result.content) ? result.content : [];
    return { ...result, content } as ToolCallResult;
  }

  close(): Promise<void> {
    this.closeRequested = true;
    this.parts.watch.stop();
    this.closing ??= this.terminate().then(() => this.tearDown());
    return this.closing;
  }

  onClosed(listener: (reason: string) => void): void {
    const reason = this.endedWithoutClose;
    if (reason === undefined) {
      this.listeners.push(listener);
      return;
    }
    queueMicrotask(() => listener(reason));
  }

  /** Ends a streamable HTTP session on the server (DELETE), unless the server already ended it. */
  private async terminate(): Promise<void> {
    const transport = this.parts.transport;
    if (!(transport instanceof StreamableHTTPClientTransport) || this.endedWithoutClose !== undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS);
    });
    // A failed or slow DELETE changes nothing for us: the sockets go in tearDown either way.
    await Promise.race([transport.terminateSession().catch(() => {}), bound]);
    clearTimeout(timer);
  }

  /** Closes the client (pending requests reject, the transport aborts) and destroys the sockets. */
  private tearDown(): Promise<void> {
    this.teardown ??= this.parts.client
      .close()
      .catch(() => {})
      .then(() => this.parts.http.close());
    return this.teardown;
  }

  private endUnasked(reason: string): void {
    if (this.closeRequested) return;
    this.endedWithoutClose = reason;
    void this.tearDown().then(() => {
      for (const listener of this.listeners.splice(0)) listener(reason);
    });
  }

  private async guard<T>(what: string, options: CallOptions, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.translate(error, what, options);
    }
  }

  private translate(error: unknown, what: string, options: CallOptions): unknown {
    if (options.signal?.aborted) return options.signal.reason;
    if (this.endedWithoutClose !== undefined) {
      return new Error(`upstream connection closed: ${this.endedWithoutClose}`);
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const timeout = new Error(`${what} timed out after ${options.timeoutMs} ms`);
      timeout.name = "TimeoutError";
      return timeout;
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new Error(`upstream connection closed: ${this.closeRequested ? "closed" : "connection lost"}`);
    }
    return requestFailure(error, what, { host: this.parts.host, secrets: this.parts.secrets });
  }
}

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

function toToolSchema(tool: ListedTool): ToolSchema {
  const schema: ToolSchema = { name: tool.name, inputSchema: tool.inputSchema as Record<string, unknown> };
  if (tool.description !== undefined) schema.description = tool.description;
  if (tool.outputSchema !== undefined) schema.outputSchema = tool.outputSchema as Record<string, unknown>;
  return schema;
}
