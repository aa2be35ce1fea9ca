import {
  InMemoryTransport,
  type JSONRPCMessage,
  ProtocolError,
  type Transport,
} from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createSessionClient,
  McpSessionConnection,
} from "../../../src/adapters/upstream/session/mcp-session-connection.js";
import type { ProgressUpdate } from "../../../src/app/ports/upstream.js";

interface Upstream {
  readonly connection: McpSessionConnection;
  /** Every message the upstream received, in order. */
  readonly received: JSONRPCMessage[];
  /** Resolves with the reason of each `tools/call` the server saw cancelled. */
  readonly cancelled: Promise<string>;
  close(): Promise<void>;
}

/**
 * An SDK server of the 2025 era with a few tools, connected in memory to a session connection as
 * the gateway makes one.
 */
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
  const client = createSessionClient({ name: "gateway", version: "1.0.0" });
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

/** A session connection over `clientSide`, initialized, that frees nothing when it ends. */
async function connectionOver(clientSide: Transport): Promise<McpSessionConnection> {
  const client = createSessionClient({ name: "gateway", version: "1.0.0" });
  await client.connect(clientSide);
  return new McpSessionConnection(client, {
    ended: new Promise(() => {}),
    release: async () => {},
    closedReason: () => "closed",
  });
}

describe("requests relayed beside the SDK client", () => {
  it("answers tools/call with the result as sent, under ids of a range the SDK's count never reaches", async () => {
    const up = await upstream();
    const [a, b] = await Promise.all([
      up.connection.callTool("echo", { text: "one" }, { timeoutMs: 5_000 }),
      up.connection.callTool("echo", { text: "two" }, { timeoutMs: 5_000 }),
    ]);
    expect(a.content).toEqual([{ type: "text", text: "one" }]);
    expect(b.content).toEqual([{ type: "text", text: "two" }]);
    expect((await up.connection.listTools({ timeoutMs: 5_000 })).map((t) => t.name)).toContain("echo");
    // The SDK client's initialize took 0; the lane's requests (tools/list too) count from 2^30.
    const ids = up.received.filter((m) => "id" in m && "method" in m).map((m) => ("id" in m ? m.id : null));
    expect(ids).toEqual([0, 2 ** 30, 2 ** 30 + 1, 2 ** 30 + 2]);
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

  it("raises the upstream's JSON-RPC error with its code and message as sent", async () => {
    const up = await upstream();
    const failure = await up.connection
      .relay("tools/call", { name: "refuse" }, { timeoutMs: 5_000 })
      .catch((e) => e);
    // The SDK server turns a tool's McpError into an error result; a method it lacks is an error response.
    expect(failure).toMatchObject({ content: [{ type: "text" }], isError: true });
    const missing = await up.connection
      .relay("nothing/here", undefined, { timeoutMs: 5_000 })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(ProtocolError);
    expect(missing).toMatchObject({ code: ErrorCode.MethodNotFound, message: "Method not found" });
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
    const sent = up.received.find((m) => "method" in m && m.method === "tools/call");
    const notice = up.received.find((m) => "method" in m && m.method === "notifications/cancelled");
    expect(notice).toMatchObject({ params: { requestId: sent && "id" in sent ? sent.id : "missing" } });
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

  it("matches ids and progress tokens a server echoes as strings, and leaves late answers to the SDK", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // A scripted server: answers initialize, then answers each tools/call with its id and progress
    // token turned into strings; a call to "slow" is answered only after the client gave up.
    serverSide.onmessage = (message) => {
      if (!("method" in message) || !("id" in message)) return;
      const id = message.id;
      if (message.method === "initialize") {
        void serverSide.send({
          jsonrpc: "2.0",
          id,
          result: {
            protocolVersion: "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "s", version: "1" },
          },
        });
        return;
      }
      const params = message.params as { name: string; _meta?: { progressToken?: number } };
      const answer = () =>
        void serverSide.send({
          jsonrpc: "2.0",
          id: String(id),
          result: { content: [{ type: "text", text: params.name }] },
        } as unknown as JSONRPCMessage);
      if (params.name === "slow") {
        setTimeout(answer, 80);
        return;
      }
      void serverSide.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: String(params._meta?.progressToken), progress: 1, total: 1 },
      });
      answer();
    };
    await serverSide.start();
    const connection = await connectionOver(clientSide);
    const progress: ProgressUpdate[] = [];
    const result = await connection.callTool(
      "quick",
      {},
      {
        timeoutMs: 5_000,
        onProgress: (update) => {
          progress.push(update);
          throw new Error("a listener that fails");
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "quick" }]);
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    await expect(connection.callTool("slow", {}, { timeoutMs: 20 })).rejects.toMatchObject({
      name: "TimeoutError",
    });
    await new Promise((resolve) => setTimeout(resolve, 120));
    // The late answer went to the SDK, which dropped it; the connection works on.
    expect((await connection.callTool("after", {}, { timeoutMs: 5_000 })).content).toEqual([
      { type: "text", text: "after" },
    ]);
    await connection.close();
  });

  it("follows a task's progress past its first answer until the task is reported finished", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    let token: unknown;
    serverSide.onmessage = (message) => {
      if (!("method" in message) || !("id" in message)) return;
      if (message.method === "initialize") {
        void serverSide.send({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {}, tasks: {} },
            serverInfo: { name: "s", version: "1" },
          },
        });
        return;
      }
      token = (message.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
      void serverSide.send({
        jsonrpc: "2.0",
        id: message.id,
        result: { task: { taskId: "t1", status: "working", createdAt: "now", ttl: null } },
      });
    };
    await serverSide.start();
    const connection = await connectionOver(clientSide);
    const progress: number[] = [];
    const result = await connection.callTool(
      "long",
      {},
      {
        timeoutMs: 5_000,
        extraParams: { task: { ttl: 1000 } },
        onProgress: (p) => progress.push(p.progress),
      },
    );
    expect(result).toMatchObject({ task: { taskId: "t1" } });
    const progressOf = (value: number) =>
      serverSide.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token as number, progress: value },
      });
    await progressOf(1);
    await serverSide.send({
      jsonrpc: "2.0",
      method: "notifications/tasks/status",
      params: { taskId: "t1", status: "completed", createdAt: "now", ttl: null },
    });
    await progressOf(2);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(progress).toEqual([1]);
    await connection.close();
  });

  it("keeps an error response's code and data as sent", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      if (!("method" in message) || !("id" in message)) return;
      if (message.method === "initialize") {
        void serverSide.send({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            protocolVersion: "2025-06-18",
            capabilities: { resources: {} },
            serverInfo: { name: "s", version: "1" },
          },
        });
        return;
      }
      void serverSide.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32002, message: "Resource not found", data: { uri: "file:///x" } },
      });
    };
    await serverSide.start();
    const connection = await connectionOver(clientSide);
    const failure = await connection
      .relay("resources/read", { uri: "file:///x" }, { timeoutMs: 5_000 })
      .catch((e) => e);
    expect(failure).toBeInstanceOf(ProtocolError);
    expect(failure).toMatchObject({
      code: -32002,
      message: "Resource not found",
      data: { uri: "file:///x" },
    });
    await connection.close();
  });
});
