import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  type JSONRPCMessage,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { SessionTransport } from "../../../src/edges/mcp/session-transport.js";

const PROTOCOL_VERSION = "2025-06-18";
const ACCEPT = "application/json, text/event-stream";

const initializeRequest = (id: string | number = 1, capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "initialize" as const,
  params: { protocolVersion: PROTOCOL_VERSION, capabilities, clientInfo: { name: "raw", version: "1" } },
});

const callTool = (id: number, name: string, args: Record<string, unknown> = {}, meta?: object) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

/** A promise the test resolves, and one the tool resolves when it starts waiting on it. */
class Gate {
  private open!: () => void;
  private arrive!: () => void;
  readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  readonly entered = new Promise<void>((resolve) => {
    this.arrive = resolve;
  });

  async pass(): Promise<void> {
    this.arrive();
    await this.opened;
  }

  release(): void {
    this.open();
  }
}

/** Why `until_cancelled` calls stopped, in order. */
const cancellations: string[] = [];

/** An MCP server with the tools these tests call; `gate` holds `wait` and a holding `slow_progress`. */
function toolServer(gate: Gate): McpServer {
  const server = new McpServer({ name: "session-transport-test", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool(
    "slow_progress",
    { inputSchema: z.object({ hold: z.boolean().optional() }) },
    async ({ hold }, ctx) => {
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: ctx.mcpReq._meta?.progressToken ?? 0, progress: 1, total: 2 },
      });
      if (hold) await gate.pass();
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  server.registerTool("wait", {}, async () => {
    await gate.pass();
    return { content: [{ type: "text", text: "waited" }] };
  });
  server.registerTool("until_cancelled", {}, async (ctx) => {
    const signal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => {
        cancellations.push(String(signal.reason));
        resolve();
      });
      void gate.pass();
    });
    return { content: [] };
  });
  server.registerTool("ask", {}, async (ctx) => {
    const answer = await ctx.mcpReq.requestSampling({
      messages: [{ role: "user", content: { type: "text", text: "q" } }],
      maxTokens: 10,
    });
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    const text = content?.type === "text" ? content.text : "";
    return { content: [{ type: "text", text: `sampled: ${text}` }] };
  });
  return server;
}

interface Harness {
  url: URL;
  transport: SessionTransport;
  server: McpServer;
  gate: Gate;
  /** Errors the MCP server reported (a response it failed to send, among others). */
  errors: Error[];
  closes: number;
  /** Resolves once a GET has been handed to the transport and answered with a stream. */
  streamOpened: Promise<void>;
  /** Resolves when the server side of the n-th POST (counting from 0) is closed. */
  postClosed(index: number): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSession(sessionId = "s-1"): Promise<Harness> {
  const gate = new Gate();
  const transport = new SessionTransport({ sessionId });
  const server = toolServer(gate);
  const errors: Error[] = [];
  server.server.onerror = (error) => errors.push(error);
  const harness = { transport, server, gate, errors, closes: 0 } as Harness;
  transport.onclose = () => {
    harness.closes++;
  };
  await server.connect(transport);

  let streamOpen: () => void = () => {};
  harness.streamOpened = new Promise<void>((resolve) => {
    streamOpen = resolve;
  });
  const postCloses: Promise<void>[] = [];
  harness.postClosed = (index) => postCloses[index] ?? Promise.reject(new Error(`no POST #${index}`));

  const http: HttpServer = createServer(async (req, res) => {
    if (req.method === "POST") postCloses.push(new Promise((resolve) => res.once("close", resolve)));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text ? JSON.parse(text) : undefined;
    await transport.handle({ method: req.method ?? "GET", headers: req.headers, body }, res);
    if (req.method === "GET" && res.statusCode === 200) streamOpen();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  harness.url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
  cleanups.push(async () => {
    gate.release();
    await server.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return harness;
}

function post(
  url: URL,
  body: unknown,
  options: { sessionId?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: ACCEPT,
    "mcp-protocol-version": PROTOCOL_VERSION,
    ...(options.sessionId ? { "mcp-session-id": options.sessionId } : {}),
    ...options.headers,
  };
  return fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

async function initialize(harness: Harness): Promise<string> {
  const response = await post(harness.url, initializeRequest());
  expect(response.status).toBe(200);
  await response.json();
  const sessionId = response.headers.get("mcp-session-id")!;
  const initialized = await post(
    harness.url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { sessionId },
  );
  expect(initialized.status).toBe(202);
  return sessionId;
}

async function expectError(response: Response, status: number, code: number, message?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as { error: { code: number; message: string }; id: unknown };
  expect(body.error.code).toBe(code);
  expect(body.id).toBeNull();
  if (message !== undefined) expect(body.error.message).toBe(message);
  return body.error.message;
}

/** Reads the JSON-RPC messages of an SSE body one event at a time. */
class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";

  constructor(response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next message, or undefined once the stream has ended. */
  async next(): Promise<JSONRPCMessage | undefined> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("\n");
        if (data) return JSON.parse(data) as JSONRPCMessage;
        continue;
      }
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  async rest(): Promise<JSONRPCMessage[]> {
    const messages: JSONRPCMessage[] = [];
    for (let message = await this.next(); message; message = await this.next()) messages.push(message);
    return messages;
  }
}

async function connectClient(harness: Harness, client = new Client({ name: "sdk", version: "1" })) {
  await client.connect(new StreamableHTTPClientTransport(harness.url));
  cleanups.push(() => client.close());
  return client;
}

describe("SessionTransport with an SDK client", () => {
  it("initializes and answers tool calls", async () => {
    const harness = await startSession(randomUUID());
    const client = await connectClient(harness);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "ask",
      "echo",
      "slow_progress",
      "until_cancelled",
      "wait",
    ]);
    const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
    expect(harness.errors).toEqual([]);
  });

  it("delivers a progress notification before the result", async () => {
    const harness = await startSession();
    const client = await connectClient(harness);
    const seen: unknown[] = [];
    const result = await client.callTool({ name: "slow_progress", arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    seen.push(result.content);
    expect(seen).toEqual([{ progress: 1, total: 2 }, [{ type: "text", text: "done" }]]);
  });

  it("relays a server-to-client request made while answering a call", async () => {
    const harness = await startSession();
    const client = new Client({ name: "sdk", version: "1" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: "m",
      role: "assistant",
      content: { type: "text", text: "from client" },
    }));
    await connectClient(harness, client);
    const result = await client.callTool({ name: "ask", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "sampled: from client" }]);
  });

  it("sends server-initiated notifications on the GET stream", async () => {
    const harness = await startSession();
    const client = new Client({ name: "sdk", version: "1" });
    const received = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no tools/list_changed notification")), 5_000);
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        clearTimeout(timer);
        resolve(notification.method);
      });
    });
    await connectClient(harness, client);
    await harness.streamOpened;
    harness.server.sendToolListChanged();
    await expect(received).resolves.toBe("notifications/tools/list_changed");
  });
});

describe("SessionTransport on the wire", () => {
  it("answers initialize with one JSON body and the session id", async () => {
    const harness = await startSession();
    const response = await post(harness.url, initializeRequest(7));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBe("s-1");
    const body = (await response.json()) as { id: number; result: { protocolVersion: string } };
    expect(body.id).toBe(7);
    expect(body.result.protocolVersion).toBe(PROTOCOL_VERSION);
  });

  it("answers a call without progress with one JSON-RPC response object", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const response = await post(harness.url, callTool(2, "echo", { text: "hi" }), { sessionId });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "hi" }] },
    });
  });

  it("turns the answer into an SSE stream when progress comes before it", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const response = await post(harness.url, callTool(3, "slow_progress", {}, { progressToken: "p-1" }), {
      sessionId,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBe(sessionId);
    expect(await new SseReader(response).rest()).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p-1", progress: 1, total: 2 },
      },
      { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "done" }] } },
    ]);
  });

  it("answers a batch with the responses in request order, whatever order they come in", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const send = vi.spyOn(harness.transport, "send");
    const answered = post(harness.url, [callTool(4, "wait"), callTool(5, "echo", { text: "second" })], {
      sessionId,
    });
    await harness.gate.entered;
    await vi.waitFor(() =>
      expect(send.mock.calls.some(([message]) => "id" in message && message.id === 5)).toBe(true),
    );
    harness.gate.release();
    const response = await answered;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual([
      { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "waited" }] } },
      { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "second" }] } },
    ]);
  });

  it("accepts a POST of notifications only with 202 and no body", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const response = await post(
      harness.url,
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { sessionId },
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("refuses a POST that does not accept both JSON and SSE with 406", async () => {
    const harness = await startSession();
    const message = "Not Acceptable: Client must accept both application/json and text/event-stream";
    await expectError(
      await post(harness.url, initializeRequest(), { headers: { accept: "application/json" } }),
      406,
      -32000,
      message,
    );
    await expectError(
      await post(harness.url, initializeRequest(), { headers: { accept: "" } }),
      406,
      -32000,
      message,
    );
  });

  it("refuses a body that is not declared JSON with 415", async () => {
    const harness = await startSession();
    await expectError(
      await post(harness.url, initializeRequest(), { headers: { "content-type": "text/plain" } }),
      415,
      -32000,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  });

  it("refuses a batch of more than 100 messages", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const batch = Array.from({ length: 101 }, (_, i) => callTool(100 + i, "echo", { text: "x" }));
    await expectError(
      await post(harness.url, batch, { sessionId }),
      400,
      -32600,
      "Invalid Request: Batch must not exceed 100 messages",
    );
  });

  it("refuses a body that is not JSON-RPC", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    await expectError(
      await post(harness.url, { foo: 1 }, { sessionId }),
      400,
      -32700,
      "Parse error: Invalid JSON-RPC message",
    );
  });

  it("refuses a second initialize", async () => {
    const harness = await startSession();
    await initialize(harness);
    await expectError(
      await post(harness.url, initializeRequest(9)),
      400,
      -32600,
      "Invalid Request: Server already initialized",
    );
  });

  it("refuses a request before initialize", async () => {
    const harness = await startSession();
    await expectError(
      await post(harness.url, callTool(2, "echo", { text: "x" }), { sessionId: "s-1" }),
      400,
      -32000,
      "Bad Request: Server not initialized",
    );
  });

  it("refuses a request without the session id with 400 and a wrong one with 404", async () => {
    const harness = await startSession();
    await initialize(harness);
    await expectError(
      await post(harness.url, callTool(2, "echo", { text: "x" })),
      400,
      -32000,
      "Bad Request: Mcp-Session-Id header is required",
    );
    await expectError(
      await post(harness.url, callTool(3, "echo", { text: "x" }), { sessionId: "another" }),
      404,
      -32001,
      "Session not found",
    );
  });

  it("refuses an unsupported protocol version", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const message = await expectError(
      await post(harness.url, callTool(2, "echo", { text: "x" }), {
        sessionId,
        headers: { "mcp-protocol-version": "1999-01-01" },
      }),
      400,
      -32000,
    );
    expect(message).toMatch(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: /);
  });

  it("allows one GET stream at a time, and only for clients accepting SSE", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const get = (accept: string, signal?: AbortSignal) =>
      fetch(harness.url, {
        method: "GET",
        headers: { accept, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
        ...(signal ? { signal } : {}),
      });
    await expectError(
      await get("application/json"),
      406,
      -32000,
      "Not Acceptable: Client must accept text/event-stream",
    );
    const stream = new AbortController();
    cleanups.push(() => stream.abort());
    const first = await get("text/event-stream", stream.signal);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    await expectError(
      await get("text/event-stream"),
      409,
      -32000,
      "Conflict: Only one SSE stream is allowed per session",
    );
  });

  it("refuses other methods with 405", async () => {
    const harness = await startSession();
    const response = await fetch(harness.url, { method: "PUT" });
    await expectError(response, 405, -32000, "Method not allowed.");
    expect(response.headers.get("allow")).toBe("GET, POST, DELETE");
  });

  it("ends the session on DELETE", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const deleted = await fetch(harness.url, {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL_VERSION },
    });
    expect(deleted.status).toBe(200);
    await expectError(
      await post(harness.url, callTool(2, "echo", { text: "x" }), { sessionId }),
      404,
      -32001,
      "Session not found",
    );
    await harness.transport.close();
    expect(harness.closes).toBe(1);
  });
});

describe("SessionTransport.adopt", () => {
  it("takes over a session initialized elsewhere", async () => {
    const sessionId = randomUUID();
    const harness = await startSession(sessionId);
    const capabilities = { sampling: {}, roots: { listChanged: true } };
    await harness.transport.adopt(initializeRequest("restore", capabilities));
    expect(harness.transport.sessionId).toBe(sessionId);
    const response = await post(harness.url, callTool(2, "echo", { text: "after restore" }), { sessionId });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "after restore" }] },
    });
    expect(harness.server.server.getClientCapabilities()).toEqual(capabilities);
    expect(harness.server.server.getClientVersion()).toEqual({ name: "raw", version: "1" });
    await expectError(
      await post(harness.url, initializeRequest(3)),
      400,
      -32600,
      "Invalid Request: Server already initialized",
    );
  });
});

describe("SessionTransport when a request outlives its HTTP exchange", () => {
  it("keeps the session working after a client leaves before its answer", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    cleanups.push(() => {
      process.off("unhandledRejection", onUnhandled);
    });
    const send = vi.spyOn(harness.transport, "send");

    const abort = new AbortController();
    const abandoned = post(harness.url, callTool(2, "wait"), { sessionId, signal: abort.signal });
    await harness.gate.entered;
    abort.abort();
    await expect(abandoned).rejects.toThrow();
    // Initialize and its notification were POSTs #0 and #1.
    await harness.postClosed(2);

    // The request was cancelled with its connection: when its handler ends, no answer is sent.
    harness.gate.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(send.mock.calls.some(([message]) => "id" in message && message.id === 2)).toBe(false);

    const response = await post(harness.url, callTool(3, "echo", { text: "still here" }), { sessionId });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { content: [{ type: "text", text: "still here" }] },
    });
    expect(harness.errors).toEqual([]);
    expect(unhandled).toEqual([]);
  });

  it("tells the server a request was cancelled when its client leaves before the answer", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    cancellations.length = 0;
    const abort = new AbortController();
    const abandoned = post(harness.url, callTool(2, "until_cancelled"), { sessionId, signal: abort.signal });
    await harness.gate.entered;
    abort.abort();
    await expect(abandoned).rejects.toThrow();
    await vi.waitFor(() => expect(cancellations).toHaveLength(1));
    expect(cancellations[0]).toContain("the client closed the connection before the answer");
    // An answered request is not cancelled when its connection closes afterwards.
    const answered = await post(harness.url, callTool(3, "echo", { text: "x" }), { sessionId });
    expect(answered.status).toBe(200);
    await answered.json();
    expect(cancellations).toHaveLength(1);
  });

  it("answers a request still pending at close() with 404", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const pending = post(harness.url, callTool(2, "wait"), { sessionId });
    await harness.gate.entered;
    await harness.transport.close();
    await expectError(await pending, 404, -32001, "Session not found");
    expect(harness.closes).toBe(1);
  });

  it("ends an SSE answer still open at close()", async () => {
    const harness = await startSession();
    const sessionId = await initialize(harness);
    const response = await post(
      harness.url,
      callTool(2, "slow_progress", { hold: true }, { progressToken: 5 }),
      { sessionId },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = new SseReader(response);
    expect(await events.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: 5, progress: 1, total: 2 },
    });
    await harness.gate.entered;
    await harness.transport.close();
    expect(await events.rest()).toEqual([]);
  });
});
