import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpSessionConnection } from "../../../src/adapters/upstream/session/mcp-session-connection.js";
import type { ProgressUpdate } from "../../../src/app/ports/upstream.js";

interface Upstream {
  readonly connection: McpSessionConnection;
  /** Every message the upstream received, in order. */
  readonly received: JSONRPCMessage[];
  /** Resolves with the reason of each `tools/call` the server saw cancelled. */
  readonly cancelled: Promise<string>;
  close(): Promise<void>;
}

/** An SDK server with a few tools, connected in memory to a session connection as the gateway makes one. */
async function upstream(): Promise<Upstream> {
  let cancel: (reason: string) => void = () => {};
  const cancelled = new Promise<string>((resolve) => {
    cancel = resolve;
  });
  const server = new McpServer({ name: "fixture", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("count", { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= to; i++) {
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: to },
        });
    }
    return { content: [{ type: "text", text: `counted to ${to}` }] };
  });
  server.registerTool("hang", {}, async (extra) => {
    await new Promise<void>((resolve) => {
      extra.signal.addEventListener("abort", () => {
        cancel(String(extra.signal.reason));
        resolve();
      });
    });
    return { content: [] };
  });
  server.registerTool("refuse", {}, async () => {
    throw new McpError(ErrorCode.InvalidParams, "not today", { why: "closed" });
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  await server.connect(serverSide);
  const serverDeliver = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    received.push(message);
    serverDeliver?.call(serverSide, message, extra);
  };
  const client = new Client({ name: "gateway", version: "1.0.0" });
  await client.connect(clientSide);
  const connection = new McpSessionConnection(client, {
    ended: new Promise(() => {}),
    release: async () => {
      await server.close();
    },
    closedReason: () => "closed",
  });
  return { connection, received, cancelled, close: () => connection.close() };
}

describe("requests relayed beside the SDK client", () => {
  it("answers tools/call with the result as sent, under ids the SDK never uses", async () => {
    const up = await upstream();
    const [a, b] = await Promise.all([
      up.connection.callTool("echo", { text: "one" }, { timeoutMs: 5_000 }),
      up.connection.callTool("echo", { text: "two" }, { timeoutMs: 5_000 }),
    ]);
    expect(a.content).toEqual([{ type: "text", text: "one" }]);
    expect(b.content).toEqual([{ type: "text", text: "two" }]);
    // The SDK's own requests (initialize) count up from 0; the relayed ones are negative.
    const ids = up.received
      .filter((m) => "method" in m && m.method === "tools/call")
      .map((m) => "id" in m && m.id);
    expect(ids).toEqual([-1, -2]);
    // The SDK's requests still work on the same transport.
    expect((await up.connection.listTools({ timeoutMs: 5_000 })).map((t) => t.name)).toContain("echo");
    await up.close();
  });

  it("hands progress to onProgress before the result, and relays other requests", async () => {
    const up = await upstream();
    const progress: ProgressUpdate[] = [];
    const result = await up.connection.callTool(
      "count",
      { to: 3 },
      { timeoutMs: 5_000, onProgress: (update) => progress.push(update) },
    );
    expect(result.content).toEqual([{ type: "text", text: "counted to 3" }]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    const listed = await up.connection.relay("tools/list", undefined, { timeoutMs: 5_000 });
    expect(Array.isArray(listed.tools)).toBe(true);
    await up.close();
  });

  it("raises the upstream's JSON-RPC error as the SDK client does", async () => {
    const up = await upstream();
    const failure = await up.connection
      .relay("tools/call", { name: "refuse" }, { timeoutMs: 5_000 })
      .catch((e) => e);
    // The SDK server turns a tool's McpError into an error result; a method it lacks is an error response.
    expect(failure).toMatchObject({ content: [{ type: "text" }], isError: true });
    const missing = await up.connection
      .relay("nothing/here", undefined, { timeoutMs: 5_000 })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({ code: ErrorCode.MethodNotFound });
    expect(missing.message).toMatch(/^MCP error -32601: /);
    await up.close();
  });

  it("tells the upstream when a call is aborted, and rejects with the signal's reason", async () => {
    const up = await upstream();
    const controller = new AbortController();
    const call = up.connection.callTool("hang", {}, { timeoutMs: 5_000, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reason = new Error("caller went away");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(await up.cancelled).toContain("caller went away");
    const notice = up.received.find((m) => "method" in m && m.method === "notifications/cancelled");
    expect(notice).toMatchObject({ params: { requestId: -1 } });
    await up.close();
  });

  it("times out with a TimeoutError and tells the upstream", async () => {
    const up = await upstream();
    const call = up.connection.callTool("hang", {}, { timeoutMs: 50 });
    await expect(call).rejects.toMatchObject({
      name: "TimeoutError",
      message: "tool call timed out after 50 ms",
    });
    expect(await up.cancelled).toContain("Request timed out");
    await up.close();
  });

  it("rejects calls in flight when the connection closes, and later ones at once", async () => {
    const up = await upstream();
    const call = up.connection.callTool("hang", {}, { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await up.close();
    await expect(call).rejects.toThrow(/upstream connection closed: closed/);
    await expect(up.connection.callTool("echo", { text: "x" }, { timeoutMs: 5_000 })).rejects.toThrow(
      /upstream connection closed: closed/,
    );
  });
});
