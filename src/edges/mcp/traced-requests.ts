import type { JSONRPCMessage, RequestId, Transport } from "@modelcontextprotocol/server";
import type { McpRequestSpanStart, RequestOutcome, RequestSpan, Tracer } from "../../app/ports/tracer.js";
import { StdioTransport } from "./stdio-transport.js";
import { transportHeaders } from "./transport-headers.js";

type OnMessage = NonNullable<Transport["onmessage"]>;

/**
 * A SERVER span for each JSON-RPC request `transport` delivers (MCP semantic conventions: named
 * `{mcp.method.name} {target}`), ended by the answer sent back: an error answer, or a tool's
 * `isError` result (`error.type` `tool_error`), marks it as an error. The request is handled inside
 * the span, so the tool calls it makes (a `gateway_call` batch included) are its children. Its
 * parent is the `_meta.traceparent` of the request, else the active HTTP span (or the HTTP
 * `traceparent` header). Called before whoever handles the transport sets its `onmessage`. Nothing
 * is wrapped while tracing is off.
 */
export function traceRequests(transport: Transport, tracer: Tracer | undefined): void {
  if (tracer === undefined || !tracer.enabled) return;
  const pending = new Map<RequestId, RequestSpan>();
  const network = transport instanceof StdioTransport ? "pipe" : "tcp";
  // The revision `initialize` settled on (sessions); a stateless request names its own.
  let negotiated: string | undefined;
  let handler: OnMessage | undefined = transport.onmessage;
  let traced: OnMessage | undefined = handler && wrap(handler);
  function wrap(fn: OnMessage): OnMessage {
    return (message, extra) => {
      if (!("method" in message) || !("id" in message) || message.id === undefined) {
        if ("method" in message && message.method === "notifications/cancelled") {
          const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
          if (requestId !== undefined) finish(requestId, { errorType: "cancelled" });
        }
        return fn(message, extra);
      }
      const request = message as Request;
      // Until the answer names the revision settled on, the one the client asked for.
      if (request.method === "initialize" && typeof request.params?.protocolVersion === "string") {
        negotiated ??= request.params.protocolVersion;
      }
      const span = tracer?.startMcpRequest(startOf(request, transport, network, negotiated));
      if (span === undefined) return fn(message, extra);
      pending.set(message.id, span);
      return span.run(() => fn(message, extra));
    };
  }
  function finish(id: RequestId, outcome: RequestOutcome): void {
    const span = pending.get(id);
    if (span === undefined) return;
    pending.delete(id);
    span.end(outcome);
  }
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => traced,
    set: (fn: OnMessage | undefined) => {
      handler = fn;
      traced = handler && wrap(handler);
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if (!("method" in message) && "id" in message && message.id !== undefined && pending.has(message.id)) {
      if ("result" in message) {
        const result = message.result as { isError?: unknown; protocolVersion?: unknown };
        if (typeof result.protocolVersion === "string") negotiated = result.protocolVersion;
        finish(message.id, result.isError === true ? { errorType: "tool_error" } : {});
      } else if ("error" in message) {
        const code = (message.error as { code?: unknown }).code;
        finish(message.id, {
          errorType: String(code),
          ...(typeof code === "number" && { rpcCode: code }),
        });
      }
    }
    return send(message, options);
  };
}

type Request = { id: RequestId; method: string; params?: Record<string, unknown> };

function startOf(
  request: Request,
  transport: Transport,
  network: "tcp" | "pipe",
  negotiated: string | undefined,
): McpRequestSpanStart {
  const params = request.params;
  const meta = params?._meta;
  const headers = transportHeaders(transport, request.id);
  const headerVersion = headers?.["mcp-protocol-version"];
  const metaVersion = (meta as Record<string, unknown> | undefined)?.[
    "io.modelcontextprotocol/protocolVersion"
  ];
  const named = typeof params?.name === "string" ? params.name : undefined;
  return {
    method: request.method,
    target: request.method === "tools/call" || request.method === "prompts/get" ? named : undefined,
    resourceUri: typeof params?.uri === "string" ? params.uri : undefined,
    requestId: request.id,
    sessionId: transport.sessionId,
    protocolVersion:
      typeof metaVersion === "string"
        ? metaVersion
        : typeof headerVersion === "string"
          ? headerVersion
          : request.method === "initialize" && typeof params?.protocolVersion === "string"
            ? params.protocolVersion
            : negotiated,
    transport: network,
    meta: typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : undefined,
    headers: headers as Readonly<Record<string, unknown>> | undefined,
  };
}
