import { type JSONRPCMessage, Server, type Transport } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { GatewayServer } from "../../../src/edges/mcp/gateway-server.js";

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
const info = { name: "gateway-server-test", version: "1" };

const initialize = (params: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params,
});

const call = (params: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params,
});

/** A server of `kind` with a tools/call handler that records its params, connected to a recording transport. */
async function connected(kind: typeof Server) {
  const server = new kind(info, { capabilities: { tools: {} } });
  const seen: unknown[] = [];
  server.setRequestHandler("tools/call", async ({ params }) => {
    seen.push(params);
    return { content: [] };
  });
  const transport = new RecordingTransport();
  await server.connect(transport);
  return { server, transport, seen };
}

describe("GatewayServer", () => {
  it("answers an initialize its schema refuses with -32602 naming the field, and a valid one as the SDK does", async () => {
    const { server, transport } = await connected(GatewayServer);
    transport.deliver(initialize({ capabilities: {}, clientInfo: { name: "c", version: "1" } }));
    await turn();
    expect(transport.sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32602,
          message: "Invalid params: protocolVersion: Invalid input: expected string, received undefined",
        },
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
    await server.close();
  });

  it("answers tools/call params the schema refuses with -32602 naming the first field and rule", async () => {
    const { server, transport, seen } = await connected(GatewayServer);
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
    await server.close();
  });

  it("is needed while the SDK's own server answers refused params with the schema's issue dump", async () => {
    // Pins the SDK behaviour the subclass replaces: should the SDK name the field itself, this fails
    // and the subclass can go.
    const { server, transport, seen } = await connected(Server);
    transport.deliver(call({ arguments: {} }));
    await turn();
    expect(transport.sent).toHaveLength(1);
    const { error } = transport.sent[0] as { error: { message: string } };
    expect(error.message).not.toMatch(/^Invalid params: name: /);
    expect(error.message).toContain('"path"');
    expect(seen).toEqual([]);
    await server.close();
  });

  it("sends a resource not found handed through failure() as -32002, where the SDK sends -32602", async () => {
    for (const [kind, code] of [
      [GatewayServer, -32002],
      [Server, -32602],
    ] as const) {
      const server = new kind(info, { capabilities: { resources: {} } });
      const notFound = Object.assign(new Error("Resource not found: notes://9"), {
        code: -32002,
        data: { uri: "notes://9" },
      });
      server.fallbackRequestHandler = async (request) => {
        throw server instanceof GatewayServer
          ? server.failure(request.id, notFound, new AbortController().signal)
          : notFound;
      };
      const transport = new RecordingTransport();
      await server.connect(transport);
      transport.deliver({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "notes://9" } });
      await turn();
      expect(transport.sent).toEqual([
        {
          jsonrpc: "2.0",
          id: 5,
          error: { code, message: "Resource not found: notes://9", data: { uri: "notes://9" } },
        },
      ]);
      await server.close();
    }
  });
});
