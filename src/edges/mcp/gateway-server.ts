import type { IncomingHttpHeaders } from "node:http";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type Result,
  Server,
  type ServerContext,
  type SpecTypeName,
  specTypeSchemas,
  type Transport,
} from "@modelcontextprotocol/server";
import type { Tracer } from "../../app/ports/tracer.js";
import { traceRequests } from "./traced-requests.js";
import { transportHeaders } from "./transport-headers.js";

export { transportHeaders };

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** JSON-RPC code of a resource not found on the session revisions (2026-07-28 answers -32602). */
const RESOURCE_NOT_FOUND = -32002;

/** The SDK's schema of the params of each method whose params the gateway's servers check first. */
const CHECKED_PARAMS: Readonly<Record<string, SpecTypeName>> = {
  initialize: "InitializeRequestParams",
  "tools/list": "PaginatedRequestParams",
  "tools/call": "CallToolRequestParams",
};

/**
 * The SDK's `Server` as the gateway's MCP servers use it: a request whose params the SDK's schema
 * refuses (an `initialize` without `protocolVersion`, a `tools/call` without `name`) is answered
 * with JSON-RPC -32602 "Invalid params" naming the first field and rule, where the SDK answers
 * with the schema library's issue dump (or, for `initialize`, -32603). It uses the hook the SDK
 * gives subclasses to wrap each registered handler; the check runs before the SDK's own.
 *
 * A request answered "resource not found" keeps its -32002 of the session revisions: the SDK sends
 * every -32002 a handler throws as -32602, the code of revision 2026-07-28 (whose answers the
 * stateless endpoint shapes itself). The handler hands such an error through {@link failure}.
 */
export class GatewayServer extends Server {
  /** Requests whose handler failed with -32002, until their answer is sent. */
  private readonly resourceMisses = new Set<RequestId>();
  /** Traces each request this server is sent (`traced-requests.ts`); undefined or off: none. */
  tracer: Tracer | undefined;

  /**
   * `error` as the failure of request `id`: a -32002 is sent as -32002. Not for a request that was
   * cancelled (`signal`), which the SDK answers not at all: its id could come back in a later one.
   */
  failure(id: RequestId, error: unknown, signal: AbortSignal): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === RESOURCE_NOT_FOUND && !signal.aborted) this.resourceMisses.add(id);
    return error;
  }

  override async connect(transport: Transport): Promise<void> {
    traceRequests(transport, this.tracer);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.restoredCode(message), options);
    await super.connect(transport);
  }

  private restoredCode(message: JSONRPCMessage): JSONRPCMessage {
    if (this.resourceMisses.size === 0 || !("error" in message) || message.id === undefined) return message;
    if (!this.resourceMisses.delete(message.id)) return message;
    return { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND } };
  }

  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    const paramsType = CHECKED_PARAMS[method];
    if (paramsType === undefined) return wrapped;
    return (request, ctx) => {
      const refused = refusedParams(paramsType, request.params);
      return refused ? Promise.reject(refused) : wrapped(request, ctx);
    };
  }
}

/** The HTTP headers of the request `id` the server is handling, when its transport tells them. */
export function requestHeaders(server: Server, id: RequestId): IncomingHttpHeaders | undefined {
  return transportHeaders(server.transport, id);
}

/** The error answering params the SDK's schema `paramsType` refuses, or undefined when it accepts them. */
function refusedParams(paramsType: SpecTypeName, params: unknown): ProtocolError | undefined {
  const checked = specTypeSchemas[paramsType]["~standard"].validate(params ?? {});
  if (checked instanceof Promise || !checked.issues) return undefined;
  const issue = checked.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === "object" ? key.key : key)).join(".");
  const rule = issue?.message ?? "invalid";
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${path || "params"}: ${rule}`);
}
