/** How a tool call ended, in the words of its audit record (`airlock.tool.status`). */
export type ToolCallStatus = "success" | "failure" | "denied";

/** What a tool call's span starts from. */
export interface ToolCallSpanStart {
  /** The server or group the caller named (`airlock.server.id`, as in the audit record). */
  readonly target: string;
  readonly tool: string;
  readonly callId: string;
  /** Recorded only when the tracer was opened with caller ids (`observability.tracing.caller_ids`). */
  readonly caller: {
    readonly id: string;
    readonly tenantId: string | null;
    /** The MCP session of the gateway's own endpoint, when there is one. */
    readonly sessionId?: string | undefined;
  };
  /**
   * The caller's trace context, used only when no request span is active (see
   * {@link RequestSpan.run}): the request's `_meta`, or the `traceparent` and `tracestate` of the HTTP
   * request that carried it. A valid `traceparent` there makes the span a child of the caller's
   * trace. Anything else in it is ignored.
   */
  readonly parent?: Readonly<Record<string, unknown>> | undefined;
}

/** The CLIENT span of one upstream tool call, from routing to the upstream's answer or the refusal. */
export interface ToolCallSpan {
  /**
   * The W3C trace context (`traceparent`, `tracestate`) the upstream is sent, naming this span as
   * the parent; undefined when nothing is traced (no headers, no `_meta` keys are added then).
   */
  readonly traceContext: Readonly<Record<string, string>> | undefined;
  /** The server that serves the call (the chosen member for a group). */
  routed(serverId: string): void;
  /**
   * Ends the span once; later calls are ignored. Any status but `success` marks the span as an
   * error, with `errorType` (the error catalogue's type name) as `error.type`; a `toolError`
   * (`isError` answer) marks it as an error with `error.type` `tool_error`.
   */
  end(status: ToolCallStatus, details?: { errorType?: string; toolError?: boolean }): void;
}

/** An incoming MCP request (a JSON-RPC request on `/mcp` or stdio). */
export interface McpRequestSpanStart {
  /** `mcp.method.name`: `tools/call`, `initialize`, ... */
  readonly method: string;
  /** The tool or prompt name (`tools/call`, `prompts/get`): the span name's target. */
  readonly target?: string | undefined;
  /** The resource URI of `resources/*` requests (an attribute, never in the span name). */
  readonly resourceUri?: string | undefined;
  readonly requestId?: string | number | undefined;
  /** The MCP session, recorded only with caller ids. */
  readonly sessionId?: string | undefined;
  readonly protocolVersion?: string | undefined;
  /** `network.transport`: `tcp` over HTTP, `pipe` over stdio. */
  readonly transport: "tcp" | "pipe";
  /** The request's `_meta`: its `traceparent` wins over the active (HTTP) span and the headers. */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /** The `traceparent`/`tracestate` HTTP headers that carried the request, when no span is active. */
  readonly headers?: Readonly<Record<string, unknown>> | undefined;
}

/** How a request ended: `errorType` (`tool_error`, a JSON-RPC code, a type name) marks an error. */
export interface RequestOutcome {
  readonly errorType?: string | undefined;
  /** JSON-RPC error code of an error answer (`rpc.response.status_code`). */
  readonly rpcCode?: number | undefined;
}

/** An incoming HTTP request, by its route. */
export interface HttpRequestSpanStart {
  readonly method: string;
  /** The route's template (`/api/mcp_servers/:id`); undefined when no route matched. */
  readonly route: string | undefined;
  readonly path: string;
  readonly headers: Readonly<Record<string, unknown>>;
}

/** The SERVER span of an incoming request. */
export interface RequestSpan {
  /**
   * Runs `fn` with this span active: spans started inside it (and across its awaits) are its
   * children, and log lines written meanwhile carry its `trace_id` and `span_id`.
   */
  run<T>(fn: () => T): T;
  /** Ends the span once; later calls are ignored. */
  end(outcome?: RequestOutcome): void;
}

export interface HttpRequestSpan extends RequestSpan {
  /** Ends the span with the response's status code (5xx marks an error). */
  endHttp(statusCode: number): void;
}

/**
 * Spans of requests and tool calls (`observability.tracing`). Guaranteed: starting and ending a
 * span never throws, never waits for I/O and never fails a call; export happens off the call path,
 * and spans are dropped when the exporter cannot keep up. Not guaranteed: that a span reaches a
 * collector. While tracing is off every method returns a shared object: nothing is allocated.
 */
export interface Tracer {
  /** Whether spans are recorded at all: callers skip gathering attributes when not. */
  readonly enabled: boolean;
  startToolCall(start: ToolCallSpanStart): ToolCallSpan;
  startMcpRequest(start: McpRequestSpanStart): RequestSpan;
  startHttpRequest(start: HttpRequestSpanStart): HttpRequestSpan;
}

const NOOP_SPAN: ToolCallSpan & HttpRequestSpan = Object.freeze({
  traceContext: undefined,
  routed: () => {},
  end: () => {},
  endHttp: () => {},
  run: <T>(fn: () => T): T => fn(),
});

/** The tracer while tracing is off: one shared span object, no allocation per call. */
export const NOOP_TRACER: Tracer = Object.freeze({
  enabled: false,
  startToolCall: () => NOOP_SPAN,
  startMcpRequest: () => NOOP_SPAN,
  startHttpRequest: () => NOOP_SPAN,
});
