import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  EmptyResultSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectSession, handleRequest } from "../../../src/edges/mcp/session-dispatch.js";

/** A transport that keeps what the server sends; `deliver` hands it a message from the client. */
class RecordingTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  readonly sent: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function server(): Server {
  return new Server({ name: "dispatch-test", version: "1" }, { capabilities: { tools: {} } });
}

const initialize = (params: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params,
});

describe("connectSession", () => {
  it("hands requests, notifications and responses to the SDK's own dispatch", async () => {
    const mcp = server();
    const requests: string[] = [];
    const notifications: string[] = [];
    mcp.fallbackRequestHandler = async (request) => {
      requests.push(request.method);
      return {};
    };
    mcp.fallbackNotificationHandler = async (notification) => {
      notifications.push(notification.method);
    };
    const transport = new RecordingTransport();
    await connectSession(mcp, transport);

    transport.deliver({ jsonrpc: "2.0", id: 7, method: "custom/ask", params: { a: 1 } });
    transport.deliver({ jsonrpc: "2.0", method: "notifications/custom", params: {} });
    const pinged = mcp.request({ method: "ping" }, EmptyResultSchema);
    await turn();
    transport.deliver({ jsonrpc: "2.0", id: 0, result: {} });
    await expect(pinged).resolves.toEqual({});
    expect(requests).toEqual(["custom/ask"]);
    expect(notifications).toEqual(["notifications/custom"]);
    expect(transport.sent).toContainEqual({ jsonrpc: "2.0", id: 7, result: {} });
    await mcp.close();
  });

  it("answers an initialize the schema refuses with -32602 naming the field, and a valid one as the SDK does", async () => {
    const mcp = server();
    const transport = new RecordingTransport();
    await connectSession(mcp, transport);

    transport.deliver(initialize({ capabilities: {}, clientInfo: { name: "c", version: "1" } }));
    await turn();
    expect(transport.sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32602, message: expect.stringMatching(/^Invalid params: protocolVersion: /) },
      },
    ]);

    transport.deliver(
      initialize({
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      }),
    );
    await turn();
    expect(transport.sent[1]).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
    await mcp.close();
  });
});

describe("handleRequest", () => {
  const call = (params: Record<string, unknown>): JSONRPCMessage => ({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params,
  });

  it("answers params the schema refuses with -32602 naming the first field and rule", async () => {
    const mcp = server();
    const seen: unknown[] = [];
    handleRequest(mcp, CallToolRequestSchema, async (request) => {
      seen.push(request.params);
      return { content: [] };
    });
    const transport = new RecordingTransport();
    await connectSession(mcp, transport);

    transport.deliver(call({ arguments: {} }));
    transport.deliver(call({ name: "add", arguments: { a: 1 } }));
    await turn();
    expect(transport.sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 3,
        error: {
          code: -32602,
          message: "Invalid params: name: Invalid input: expected string, received undefined",
        },
      },
      { jsonrpc: "2.0", id: 3, result: { content: [] } },
    ]);
    expect(seen).toEqual([{ name: "add", arguments: { a: 1 } }]);
    await mcp.close();
  });

  it("is needed while the SDK answers a refused request with -32603 and the schema's issue dump", async () => {
    // Pins the SDK behaviour `handleRequest` replaces: should the SDK answer -32602 itself, this
    // fails and the helper can go.
    const mcp = server();
    mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }));
    const transport = new RecordingTransport();
    await connectSession(mcp, transport);
    transport.deliver(call({ arguments: {} }));
    await turn();
    expect(transport.sent).toEqual([
      { jsonrpc: "2.0", id: 3, error: expect.objectContaining({ code: -32603 }) },
    ]);
    await mcp.close();
  });
});
