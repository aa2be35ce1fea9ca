import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallOptions, ToolCallResult, UpstreamConnection } from "../../../app/ports/upstream.js";
import type { ToolSchema } from "../../../domain/server/server-spec.js";
import type { ContainerTransport } from "./container-transport.js";

/**
 * Most `tools/list` pages followed. A server whose cursors never end would otherwise keep the call
 * busy until its deadline; 100 pages is far more than any real server needs.
 */
const MAX_TOOL_PAGES = 100;

/**
 * An initialized MCP session with one container (see {@link ContainerTransport}).
 *
 * Guaranteed: `close()` is idempotent, every caller's promise resolves only once the container is
 * stopped and removed; `onClosed` listeners run once with the reason when the container exits or
 * its stream breaks without `close()`, including a listener added after that happened (the
 * container is then removed in the background). Calls reject with: the signal's reason when
 * aborted; an Error named `TimeoutError` past `timeoutMs`; an Error naming the exit reason when the
 * connection ends mid-call; the server's JSON-RPC error otherwise. Not guaranteed: ordering between
 * concurrent calls.
 */
export class DockerConnection implements UpstreamConnection {
  private closeRequested = false;
  private closing: Promise<void> | undefined;
  private endedWithoutClose: string | undefined;
  private readonly listeners: Array<(reason: string) => void> = [];

  constructor(
    private readonly client: Client,
    private readonly transport: ContainerTransport,
    /** The engine's id of the container, for diagnostics and tests. */
    readonly containerId: string,
  ) {
    void transport.ended.then((reason) => {
      if (this.closeRequested) return;
      this.endedWithoutClose = reason;
      for (const listener of this.listeners.splice(0)) listener(reason);
    });
  }

  /** Resolves once the container is removed, whether `close()` or its own exit ended it. */
  get removed(): Promise<void> {
    return this.transport.removed;
  }

  async listTools(options: CallOptions): Promise<ToolSchema[]> {
    const deadline = performance.now() + options.timeoutMs;
    const tools: ToolSchema[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const timeout = Math.max(1, deadline - performance.now());
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.guard("tools/list", options, () =>
        this.client.listTools(params, { signal: options.signal, timeout }),
      );
      for (const tool of result.tools) tools.push(toToolSchema(tool));
      if (!result.nextCursor || result.nextCursor === cursor) return tools;
      cursor = result.nextCursor;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    // A plain request, not `client.callTool`: results pass through as the upstream sent them.
    const result = await this.guard("tool call", options, () =>
      this.client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, {
        signal: options.signal,
        timeout: options.timeoutMs,
      }),
    );
    const content = Array.isArray(result.content) ? result.content : [];
    return { ...result, content } as ToolCallResult;
  }

  close(): Promise<void> {
    this.closeRequested = true;
    // The client only forwards to the transport; the transport's close waits for the removal.
    this.closing ??= this.client
      .close()
      .catch(() => {})
      .then(() => this.transport.close());
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

  private async guard<T>(what: string, options: CallOptions, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.translate(error, what, options);
    }
  }

  private translate(error: unknown, what: string, options: CallOptions): unknown {
    if (options.signal?.aborted) return options.signal.reason;
    if (!(error instanceof McpError)) return error;
    if (error.code === ErrorCode.RequestTimeout) {
      const timeout = new Error(`${what} timed out after ${options.timeoutMs} ms`);
      timeout.name = "TimeoutError";
      return timeout;
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return new Error(`upstream connection closed: ${this.transport.closedReason ?? "closed"}`);
    }
    return error;
  }
}

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

function toToolSchema(tool: ListedTool): ToolSchema {
  const schema: ToolSchema = { name: tool.name, inputSchema: tool.inputSchema as Record<string, unknown> };
  if (tool.description !== undefined) schema.description = tool.description;
  if (tool.outputSchema !== undefined) schema.outputSchema = tool.outputSchema as Record<string, unknown>;
  return schema;
}
