import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EmptyResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectSession } from "../../../src/edges/mcp/session-dispatch.js";
import { SessionTransport } from "../../../src/edges/mcp/session-transport.js";

/** A server whose fallback handlers record what reaches them, and the `onmessage` the SDK installed. */
function recordingServer() {
  const server = new Server({ name: "dispatch-test", version: "1" }, { capabilities: {} });
  const requests: string[] = [];
  const notifications: string[] = [];
  server.fallbackRequestHandler = async (request) => {
    requests.push(request.method);
    return {};
  };
  server.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification.method);
  };
  const connect = server.connect.bind(server);
  const installed: { onmessage?: SessionTransport["onmessage"] } = {};
  server.connect = async (transport) => {
    await connect(transport);
    installed.onmessage = transport.onmessage;
  };
  return { server, requests, notifications, installed };
}

const deliver = (transport: SessionTransport, message: JSONRPCMessage) => transport.onmessage?.(message);
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("connectSession", () => {
  it("hands requests, notifications and responses to the SDK's handler of their kind", async () => {
    const { server, requests, notifications, installed } = recordingServer();
    const transport = new SessionTransport({ sessionId: "s-1" });
    server.onerror = () => {}; // the answer to the request has no HTTP exchange to go to here
    await connectSession(server, transport);
    expect(transport.onmessage).not.toBe(installed.onmessage);

    deliver(transport, { jsonrpc: "2.0", id: 7, method: "custom/ask", params: { a: 1 } });
    deliver(transport, { jsonrpc: "2.0", method: "notifications/custom", params: {} });
    // A server-initiated request is answered by the client: the response settles it.
    const pinged = server.request({ method: "ping" }, EmptyResultSchema);
    await turn();
    deliver(transport, { jsonrpc: "2.0", id: 0, result: {} });
    await expect(pinged).resolves.toEqual({});
    await turn();
    expect(requests).toEqual(["custom/ask"]);
    expect(notifications).toEqual(["notifications/custom"]);
    const failed = server.request({ method: "ping" }, EmptyResultSchema);
    await turn();
    deliver(transport, { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "no" } });
    await expect(failed).rejects.toThrow("no");
    await server.close();
  });

  it("leaves the SDK's own dispatch in place when its handlers are not there", async () => {
    const { server, requests, installed } = recordingServer();
    Object.defineProperty(server, "_onresponse", { value: undefined });
    const transport = new SessionTransport({ sessionId: "s-2" });
    server.onerror = () => {};
    await connectSession(server, transport);
    expect(transport.onmessage).toBe(installed.onmessage);
    deliver(transport, { jsonrpc: "2.0", id: 1, method: "custom/ask" });
    await turn();
    expect(requests).toEqual(["custom/ask"]);
    await server.close();
  });
});
