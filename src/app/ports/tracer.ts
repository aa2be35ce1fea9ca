/** How a tool call ended, in the words of its audit record (`mcp.tool.status`). */
export type ToolCallStatus = "success" | "failure" | "denied";

/** What a tool call's span starts from. */
export interface ToolCallSpanStart {
  /** The server or group the caller named (`mcp.server.id`, as in the audit record). */
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
   * The caller's trace context (front door): the request's `_meta`, or the `traceparent` and
   * `tracestate` of the HTTP request that carried it. A valid `traceparent` there makes the span a
   * child of the caller's trace. Anything else in it is ignored.
   */
  readonly parent?: Readonly<Record<string, unknown>> | undefined;
}

/** The span of one tool call, from routing to the upstream's answer or the refusal. */
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
   * error, with `errorType` (the error catalogue's type name) as `error.type`.
   */
  end(status: ToolCallStatus, details?: { errorType?: string; toolError?: boolean }): void;
}

/**
 * Spans of tool calls (`observability.tracing`). Guaranteed: starting and ending a span never
 * throws, never waits for I/O and never fails a call; export happens off the call path, and spans
 * are dropped when the exporter cannot keep up. Not guaranteed: that a span reaches a collector.
 */
export interface Tracer {
  startToolCall(start: ToolCallSpanStart): ToolCallSpan;
}

const NOOP_SPAN: ToolCallSpan = Object.freeze({
  traceContext: undefined,
  routed: () => {},
  end: () => {},
});

/** The tracer while tracing is off: one shared span object, no allocation per call. */
export const NOOP_TRACER: Tracer = Object.freeze({ startToolCall: () => NOOP_SPAN });
