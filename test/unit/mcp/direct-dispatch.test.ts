import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  ProtocolError,
  Server,
  type ServerNotification,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { serveDirect } from "../../../src/edges/mcp/direct-dispatch.js";
import type { FrontDoorRequestHandler, RequestScope } from "../../../src/edges/mcp/front-door/server.js";

/** A transport that keeps what is sent on it, with the request each message relates to. */
class RecordingTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  readonly sent: { message: JSONRPCMessage; related?: unknown }[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.sent.push({ message, related: options?.relatedRequestId });
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

/** `handler` served by the SDK's own `Server` (its fallback handler, as a stateless request's server). */
async function throughServer(handler: FrontDoorRequestHandler): Promise<RecordingTransport> {
  const server = new Server({ name: "dispatch", version: "1" }, { capabilities: { tools: {} } });
  server.onerror = () => {};
  server.fallbackRequestHandler = (request, ctx) => {
    const scope: RequestScope = {
      id: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      headers: undefined,
      clientCapabilities: undefined,
      notify: (notification) => ctx.mcpReq.notify(notification as ServerNotification),
    };
    return handler(request, scope);
  };
  const transport = new RecordingTransport();
  await server.connect(transport);
  return transport;
}

/** `handler` served by `serveDirect`. */
async function direct(handler: FrontDoorRequestHandler): Promise<RecordingTransport> {
  const transport = new RecordingTransport();
  serveDirect(transport, handler);
  return transport;
}

const call: JSONRPCRequest = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "add", arguments: { a: 1 }, _meta: { progressToken: "p" } },
};

/** What each way sends for `call` to `handler` (and `then`, delivered after it). */
async function both(handler: FrontDoorRequestHandler, then?: JSONRPCMessage) {
  const runs = [];
  for (const serve of [throughServer, direct]) {
    const transport = await serve(handler);
    transport.deliver(call);
    if (then) {
      await turn();
      transport.deliver(then);
    }
    await turn();
    runs.push(transport.sent);
  }
  return runs;
}

describe("serveDirect, beside the SDK's dispatch of the same request", () => {
  it("answers with the handler's result, its notifications first and along the request", async () => {
    const [sdk, own] = await both(async (request, scope) => {
      await scope.notify({ method: "notifications/progress", params: { progressToken: "p", progress: 1 } });
      return { content: [{ type: "text", text: String(request.params?.name) }] };
    });
    expect(own).toEqual(sdk);
    expect(own).toEqual([
      {
        message: {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "p", progress: 1 },
        },
        related: 7,
      },
      {
        message: { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "add" }] } },
        related: undefined,
      },
    ]);
  });

  it("answers a rejection with its code, message and data", async () => {
    const [sdk, own] = await both(async () => {
      throw new ProtocolError(-32601, "Unknown tool: add", { tool: "add" });
    });
    expect(own).toEqual(sdk);
    expect(own?.[0]?.message).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32601, message: "Unknown tool: add", data: { tool: "add" } },
    });
  });

  it("answers an error without a JSON-RPC code with -32603 and its message", async () => {
    const [sdk, own] = await both(async () => {
      throw new Error("boom");
    });
    expect(own).toEqual(sdk);
    expect(own?.[0]?.message).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "boom" } });
  });

  it("aborts the handler's signal on notifications/cancelled, with its reason, and answers nothing", async () => {
    const reasons: unknown[] = [];
    const handler: FrontDoorRequestHandler = (_request, scope) =>
      new Promise((resolve) => {
        scope.signal.addEventListener("abort", () => {
          reasons.push(scope.signal.reason);
          resolve({ content: [] });
        });
      });
    const cancelled: JSONRPCMessage = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "the client left" },
    };
    const [sdk, own] = await both(handler, cancelled);
    expect(own).toEqual(sdk);
    expect(own).toEqual([]);
    expect(reasons).toEqual(["the client left", "the client left"]);
  });

  it("aborts the handler's signal when the transport closes (the client left), and answers nothing", async () => {
    for (const serve of [throughServer, direct]) {
      let aborted = false;
      const transport = await serve(
        (_request, scope) =>
          new Promise((resolve) => {
            scope.signal.addEventListener("abort", () => {
              aborted = true;
              resolve({ content: [] });
            });
          }),
      );
      transport.deliver(call);
      await turn();
      await transport.close();
      await turn();
      expect(aborted).toBe(true);
      expect(transport.sent).toEqual([]);
    }
  });
});
