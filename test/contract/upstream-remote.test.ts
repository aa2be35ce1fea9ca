import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { DnsEndpointGuard, type Resolver } from "../../src/adapters/net/dns-endpoint-guard.js";
import { UndiciHttpClientFactory } from "../../src/adapters/net/undici-http-client-factory.js";
import type { RemoteConnection } from "../../src/adapters/upstream/remote/remote-connection.js";
import { RemoteUpstreamFactory } from "../../src/adapters/upstream/remote/remote-upstream-factory.js";
import type { LogSink } from "../../src/app/ports/upstream.js";
import { RequestRejected } from "../../src/domain/errors.js";
import type { ServerSource, ServerSpec } from "../../src/domain/server/server-spec.js";

const CONNECT = { timeoutMs: 10_000 };
const CALL = { timeoutMs: 10_000 };
const TOKEN = "tok-3f9a1c7e-very-secret";
const NO_LOGS: LogSink = { append: () => {} };

// ---------------------------------------------------------------------------------------------
// MCP servers served over HTTP on 127.0.0.1

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
}

/** The tools every test server offers. */
function buildMcpServer(): McpServer {
  const server = new McpServer({ name: "remote-test", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echo the text back.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }),
  );
  server.registerTool("fail", { description: "Always an error result.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "it failed" }],
    isError: true,
  }));
  server.registerTool(
    "slow",
    { description: "Answer after ms milliseconds.", inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: "text", text: `slept ${ms}` }] };
    },
  );
  return server;
}

interface TestServer {
  readonly url: string;
  readonly seen: Seen[];
  /** Forget every session, as a restarted server would. */
  forgetSessions(): void;
  close(): Promise<void>;
}

interface ServeOptions {
  /** Answer 401 unless this header has this value. */
  require?: { name: string; value: string };
  /** Answer 500 echoing the request's Authorization header to every tools/call. */
  echoAuthOnCall?: boolean;
  tls?: { key: string; cert: string };
  host?: string;
}

const running: TestServer[] = [];

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: ServeOptions,
): Promise<{ server: Server; base: string }> {
  const server =
    options.tls === undefined ? createServer(handler) : createHttpsServer({ ...options.tls }, handler);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  return { server, base: `${options.tls === undefined ? "http" : "https"}://${host}:${port}` };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function refused(req: IncomingMessage, res: ServerResponse, options: ServeOptions): boolean {
  const required = options.require;
  if (required === undefined || req.headers[required.name.toLowerCase()] === required.value) return false;
  res.writeHead(401, { "content-type": "text/plain" }).end("unauthorized");
  return true;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text);
}

/** A streamable HTTP MCP server (stateful sessions) at `/mcp`. */
async function serveStreamable(options: ServeOptions = {}): Promise<TestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const seen: Seen[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    seen.push({ method: req.method ?? "", path, headers: req.headers });
    if (refused(req, res, options)) return;
    if (path !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === "POST" ? await readBody(req) : undefined;
    if (options.echoAuthOnCall && (body as { method?: string } | undefined)?.method === "tools/call") {
      res
        .writeHead(500, { "content-type": "text/plain" })
        .end(`bad request with ${req.headers.authorization}`);
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (typeof sessionId === "string" && transport === undefined) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
      );
      return;
    }
    if (transport === undefined) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      transport = created;
      await buildMcpServer().connect(created);
    }
    await transport.handleRequest(req, res, body);
  };
  const { server, base } = await listen((req, res) => void handle(req, res), options);
  const testServer: TestServer = {
    url: `${base}/mcp`,
    seen,
    forgetSessions: () => sessions.clear(),
    close: () => stop(server),
  };
  running.push(testServer);
  return testServer;
}

/** An old-style HTTP+SSE MCP server: GET /sse opens the stream, POST /messages carries requests. */
async function serveLegacySse(options: ServeOptions = {}): Promise<TestServer> {
  const sessions = new Map<string, SSEServerTransport>();
  const seen: Seen[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push({ method: req.method ?? "", path: url.pathname, headers: req.headers });
    if (refused(req, res, options)) return;
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await buildMcpServer().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (transport === undefined) {
        res.writeHead(404).end("unknown session");
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(req.method === "POST" ? 405 : 404).end();
  };
  const { server, base } = await listen((req, res) => void handle(req, res), options);
  const testServer: TestServer = {
    url: `${base}/sse`,
    seen,
    forgetSessions: () => sessions.clear(),
    close: () => stop(server),
  };
  running.push(testServer);
  return testServer;
}

// ---------------------------------------------------------------------------------------------
// The factory under test

function spec(
  endpoint: string,
  options: Record<string, unknown> = {},
  source: ServerSource = "config",
): ServerSpec {
  return {
    id: "remote-under-test",
    mode: "remote",
    endpoint,
    env: {},
    idle_ttl_s: 300,
    health_check_interval_s: 60,
    max_consecutive_failures: 3,
    options,
    source,
  };
}

function makeFactory(
  guardOptions: ConstructorParameters<typeof DnsEndpointGuard>[0] = {},
): RemoteUpstreamFactory {
  const guard = new DnsEndpointGuard(guardOptions);
  return new RemoteUpstreamFactory({
    clientInfo: { name: "airlock-test", version: "0.0.0" },
    guard,
    http: new UndiciHttpClientFactory({ guard }),
  });
}

const factory = makeFactory();
const open: RemoteConnection[] = [];

async function connect(
  endpoint: string,
  options: Record<string, unknown> = {},
  using: RemoteUpstreamFactory = factory,
  source: ServerSource = "config",
): Promise<RemoteConnection> {
  const connection = (await using.connect(
    spec(endpoint, options, source),
    NO_LOGS,
    CONNECT,
  )) as RemoteConnection;
  open.push(connection);
  return connection;
}

async function connectError(
  endpoint: string,
  options: Record<string, unknown> = {},
  using: RemoteUpstreamFactory = factory,
  source: ServerSource = "config",
  timeoutMs = CONNECT.timeoutMs,
): Promise<Error> {
  const result = await using.connect(spec(endpoint, options, source), NO_LOGS, { timeoutMs }).then(
    (connection) => {
      open.push(connection as RemoteConnection);
      return new Error("connected, but a failure was expected");
    },
    (error: unknown) => error as Error,
  );
  expect(result.message).not.toBe("connected, but a failure was expected");
  return result;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
  await Promise.all(running.splice(0).map((server) => server.close()));
});

// ---------------------------------------------------------------------------------------------

describe("RemoteUpstreamFactory over streamable HTTP", () => {
  it("lists tools and calls them, passing results through as the server sent them", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    expect(connection.transportKind).toBe("streamable_http");
    const tools = await connection.listTools(CALL);
    expect(tools.map((tool) => tool.name).sort()).toEqual(["echo", "fail", "slow"]);
    expect(tools.find((tool) => tool.name === "echo")?.inputSchema).toMatchObject({
      type: "object",
      required: ["text"],
    });
    const echoed = await connection.callTool("echo", { text: "hello" }, CALL);
    expect(echoed).toMatchObject({
      content: [{ type: "text", text: "hello" }],
      structuredContent: { text: "hello" },
    });
    const failed = await connection.callTool("fail", {}, CALL);
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "it failed" }] });
  });

  it("runs concurrent calls on one session", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    const texts = Array.from({ length: 8 }, (_, index) => `call-${index}`);
    const results = await Promise.all(texts.map((text) => connection.callTool("echo", { text }, CALL)));
    expect(results.map((result) => (result.structuredContent as { text: string }).text)).toEqual(texts);
  });

  it("gives every request its own abort signal, so nothing piles up on the session's shared one", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      for (let index = 0; index < 40; index++) await connection.callTool("echo", { text: `${index}` }, CALL);
    } finally {
      process.off("warning", onWarning);
    }
    // The SDK transport's one long-lived controller: only still-open requests may listen to it.
    const transport = Reflect.get(connection, "parts").transport as object;
    const shared = (Reflect.get(transport, "_abortController") as AbortController).signal;
    expect(getEventListeners(shared, "abort").length).toBeLessThanOrEqual(2);
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("sends the bearer token on every request, the DELETE that ends the session included", async () => {
    const server = await serveStreamable({ require: { name: "authorization", value: `Bearer ${TOKEN}` } });
    const connection = await connect(server.url, { auth: { type: "bearer", token: TOKEN } });
    await connection.callTool("echo", { text: "x" }, CALL);
    await connection.close();
    const methods = new Set(server.seen.map((request) => request.method));
    expect(methods).toEqual(new Set(["POST", "GET", "DELETE"]));
    for (const request of server.seen) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("sends an API key in X-API-Key by default, or in the header named by header_name", async () => {
    const byDefault = await serveStreamable({ require: { name: "x-api-key", value: TOKEN } });
    await connect(byDefault.url, { auth: { type: "api_key", token: TOKEN } });
    const named = await serveStreamable({ require: { name: "x-custom-key", value: TOKEN } });
    const connection = await connect(named.url, {
      auth: { type: "api_key", token: TOKEN, header_name: "X-Custom-Key" },
    });
    await connection.callTool("echo", { text: "x" }, CALL);
    expect(named.seen.every((request) => request.headers["x-custom-key"] === TOKEN)).toBe(true);
    expect(named.seen.some((request) => "authorization" in request.headers)).toBe(false);
  });

  it("adds http.headers to every request, the credential header winning over an extra header of its name", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url, {
      auth: { type: "bearer", token: TOKEN },
      http: { headers: { "X-Tenant": "acme", Authorization: "Basic overridden" } },
    });
    await connection.callTool("echo", { text: "x" }, CALL);
    for (const request of server.seen) {
      expect(request.headers["x-tenant"]).toBe("acme");
      expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it("says a wrong token was refused without ever showing it", async () => {
    const server = await serveStreamable({ require: { name: "authorization", value: "Bearer right" } });
    const error = await connectError(server.url, { auth: { type: "bearer", token: TOKEN } });
    expect(error.message).toBe("initialize failed: the endpoint answered HTTP 401 (check the auth block)");
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(TOKEN);
  });

  it("never echoes a token a server sends back in an error body", async () => {
    const server = await serveStreamable({ echoAuthOnCall: true });
    const connection = await connect(server.url, { auth: { type: "bearer", token: TOKEN } });
    const error = (await connection.callTool("echo", { text: "x" }, CALL).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe("tool call failed: the endpoint answered HTTP 500");
    expect(`${error.message} ${error.stack}`).not.toContain(TOKEN);
  });

  it("rejects a call past its timeout with an Error named TimeoutError", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    const error = (await connection
      .callTool("slow", { ms: 3_000 }, { timeoutMs: 200 })
      .catch((e: unknown) => e)) as Error;
    expect(error.name).toBe("TimeoutError");
    expect(error.message).toBe("tool call timed out after 200 ms");
    // The session still works.
    await expect(connection.callTool("echo", { text: "after" }, CALL)).resolves.toMatchObject({
      structuredContent: { text: "after" },
    });
  });

  it("fails a call at once when the server stays silent past http.read_timeout_s", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url, { http: { read_timeout_s: 0.3 } });
    const started = performance.now();
    const error = (await connection.callTool("slow", { ms: 5_000 }, CALL).catch((e: unknown) => e)) as Error;
    expect(error.name).toBe("TimeoutError");
    expect(error.message).toMatch(
      /^tool call timed out: the server sent .* for 0.3 s \(http.read_timeout_s\)$/,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("refuses an answer that does not arrive within the connect deadline", async () => {
    // Accepts connections and says nothing: the initialize POST never gets an answer.
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = performance.now();
      const error = await connectError(`http://127.0.0.1:${port}/mcp`, {}, factory, "config", 400);
      expect(error.message).toBe("initialize timed out after 400 ms");
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("abandons a connect at once when its signal aborts (the server was stopped meanwhile)", async () => {
    const sockets = new Set<Socket>();
    let closed = 0;
    const silent = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => closed++);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      const error = (await factory
        .connect(spec(`http://127.0.0.1:${port}/mcp`), NO_LOGS, {
          timeoutMs: 10_000,
          signal: controller.signal,
        })
        .catch((e: unknown) => e)) as Error;
      expect(error.message).toBe("start abandoned: the server was stopped");
      expect(performance.now() - started).toBeLessThan(2_000);
      // What the attempt opened is gone: the server sees its sockets closed.
      expect(sockets.size).toBeGreaterThan(0);
      await vi.waitFor(() => expect(closed).toBe(sockets.size));
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("gives up a TLS connection that does not complete within http.connect_timeout_s", async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const error = await connectError(`https://127.0.0.1:${port}/mcp`, {
        http: { connect_timeout_s: 0.3, transport: "streamable_http" },
      });
      expect(error.message).toBe(
        `cannot connect to 127.0.0.1:${port}: connect timed out (http.connect_timeout_s)`,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("says the connection was refused when nothing listens", async () => {
    const server = await serveStreamable();
    const url = server.url;
    await server.close();
    const error = await connectError(url);
    expect(error.message).toBe(`cannot connect to ${new URL(url).host}: connection refused`);
  });

  it("ends the session with a DELETE on close, and close is idempotent", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    const closed = vi.fn();
    connection.onClosed(closed);
    expect(connection.sessionId).toMatch(/[0-9a-f-]{36}/);
    await Promise.all([connection.close(), connection.close()]);
    await connection.close();
    expect(server.seen.filter((request) => request.method === "DELETE")).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).not.toHaveBeenCalled();
  });

  it("reports onClosed when the server goes away, and calls then fail with the reason", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    await connection.listTools(CALL);
    // The standalone event stream is open once initialize completed.
    await vi.waitFor(() => expect(server.seen.some((request) => request.method === "GET")).toBe(true));
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await server.close();
    await vi.waitFor(() => expect(reasons).toHaveLength(1), { timeout: 8_000, interval: 50 });
    expect(reasons[0]).toMatch(/refused the connection|could not be re-opened/);
    await expect(connection.callTool("echo", { text: "x" }, CALL)).rejects.toThrow(
      `upstream connection closed: ${reasons[0]}`,
    );
    const late: string[] = [];
    connection.onClosed((reason) => late.push(reason));
    await vi.waitFor(() => expect(late).toEqual(reasons));
  });

  it("reports onClosed when the server no longer knows the session", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    server.forgetSessions();
    await expect(connection.callTool("echo", { text: "x" }, CALL)).rejects.toThrow(
      "upstream connection closed: the server ended the session (HTTP 404)",
    );
    await vi.waitFor(() => expect(reasons).toEqual(["the server ended the session (HTTP 404)"]));
  });
});

describe("RemoteUpstreamFactory falling back to the old SSE transport", () => {
  it("uses SSE when the initialize POST is answered with 405 (transport auto)", async () => {
    const server = await serveLegacySse();
    const connection = await connect(server.url, { auth: { type: "bearer", token: TOKEN } });
    expect(connection.transportKind).toBe("sse");
    expect((await connection.listTools(CALL)).map((tool) => tool.name).sort()).toEqual([
      "echo",
      "fail",
      "slow",
    ]);
    await expect(connection.callTool("echo", { text: "old" }, CALL)).resolves.toMatchObject({
      structuredContent: { text: "old" },
    });
    expect(server.seen[0]).toMatchObject({ method: "POST", path: "/sse" });
    for (const request of server.seen) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("uses SSE directly with transport sse, and refuses it with transport streamable_http", async () => {
    const server = await serveLegacySse();
    const connection = await connect(server.url, { http: { transport: "sse" } });
    expect(connection.transportKind).toBe("sse");
    expect(server.seen[0]).toMatchObject({ method: "GET", path: "/sse" });
    const error = await connectError(server.url, { http: { transport: "streamable_http" } });
    expect(error.message).toBe("initialize failed: the endpoint answered HTTP 405");
  });

  it("does not fall back on 401: a refused credential is reported as such", async () => {
    const server = await serveStreamable({ require: { name: "x-api-key", value: "right" } });
    const error = await connectError(server.url, { auth: { type: "api_key", token: TOKEN } });
    expect(error.message).toBe("initialize failed: the endpoint answered HTTP 401 (check the auth block)");
    // The revision probe (`server/discover`), then `initialize`; no GET of the old SSE transport.
    expect(server.seen.map((request) => request.method)).toEqual(["POST", "POST"]);
  });

  it("names both answers when neither transport is there", async () => {
    const server = await serveStreamable();
    const error = await connectError(server.url.replace("/mcp", "/nothing"));
    expect(error.message).toBe(
      "initialize failed: the SSE endpoint answered HTTP 404 (after streamable HTTP answered HTTP 404)",
    );
  });

  it("reports onClosed at once when the SSE stream ends", async () => {
    const server = await serveLegacySse();
    const connection = await connect(server.url);
    const reasons: string[] = [];
    connection.onClosed((reason) => reasons.push(reason));
    await server.close();
    await vi.waitFor(() => expect(reasons).toHaveLength(1), { timeout: 3_000, interval: 20 });
    expect(reasons[0]).toMatch(/event stream/);
    await expect(connection.callTool("echo", { text: "x" }, CALL)).rejects.toThrow(
      /^upstream connection closed: /,
    );
  });

  it("closes the SSE session without onClosed", async () => {
    const server = await serveLegacySse();
    const connection = await connect(server.url);
    const closed = vi.fn();
    connection.onClosed(closed);
    await connection.close();
    await connection.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).not.toHaveBeenCalled();
  });
});

describe("RemoteUpstreamFactory and the SSRF guard", () => {
  it("refuses a REST-registered endpoint on a loopback address before sending anything", async () => {
    const server = await serveStreamable();
    const error = await connectError(server.url, {}, factory, "api");
    expect(error).toBeInstanceOf(RequestRejected);
    expect(error).toMatchObject({ status: 400, code: "ssrf_blocked" });
    expect((error as RequestRejected).detail).toBe(
      "endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)",
    );
    expect(server.seen).toEqual([]);
  });

  it("trusts the same endpoint from the configuration file", async () => {
    const server = await serveStreamable();
    const connection = await connect(server.url, {}, factory, "config");
    await expect(connection.listTools(CALL)).resolves.toHaveLength(3);
  });

  it("connects a REST-registered endpoint whose name resolves into a trusted network", async () => {
    const server = await serveStreamable();
    const port = new URL(server.url).port;
    const resolve: Resolver = async (hostname) =>
      hostname === "mcp.test" ? [{ address: "127.0.0.1", family: 4 }] : Promise.reject(new Error("unknown"));
    // 127.0.0.0/8 is refused as a trusted network by the configuration; built directly here to reach
    // a test server through the whole guarded path.
    const guarded = makeFactory({ resolve, trustedNetworks: ["127.0.0.0/8"] });
    const connection = await connect(`http://mcp.test:${port}/mcp`, {}, guarded, "api");
    await expect(connection.callTool("echo", { text: "guarded" }, CALL)).resolves.toMatchObject({
      structuredContent: { text: "guarded" },
    });
    expect(server.seen[0]?.headers.host).toBe(`mcp.test:${port}`);
  });

  it("refuses a REST-registered endpoint whose name resolves to a private address", async () => {
    const resolve: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ];
    const error = await connectError("http://mixed.test/mcp", {}, makeFactory({ resolve }), "api");
    expect(error).toMatchObject({
      code: "ssrf_blocked",
      detail: "endpoint host mixed.test resolves to a private address (10.0.0.0/8)",
    });
  });
});

// ---------------------------------------------------------------------------------------------
// TLS, with a certificate made by openssl at test time (Node cannot write X.509 certificates).

function findOpenssl(): string | undefined {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return "openssl";
  } catch {
    return undefined;
  }
}

const OPENSSL = findOpenssl();

describe.skipIf(OPENSSL === undefined)("RemoteUpstreamFactory over TLS (needs the openssl CLI)", () => {
  let dir = "";
  let certPath = "";
  let tls: { key: string; cert: string } = { key: "", cert: "" };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "airlock-tls-"));
    certPath = join(dir, "cert.pem");
    const keyPath = join(dir, "key.pem");
    execFileSync(
      OPENSSL as string,
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        keyPath,
        "-out",
        certPath,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    tls = { key: await readFile(keyPath, "utf8"), cert: await readFile(certPath, "utf8") };
  });

  afterAll(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a self-signed certificate by default", async () => {
    const server = await serveStreamable({ tls });
    const error = await connectError(server.url);
    expect(error.message).toMatch(
      /^TLS certificate of 127\.0\.0\.1:\d+ rejected \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/,
    );
  });

  it("accepts it with verify_ssl false, for that server only", async () => {
    const server = await serveStreamable({ tls });
    const connection = await connect(server.url, { tls: { verify_ssl: false } });
    await expect(connection.listTools(CALL)).resolves.toHaveLength(3);
    const again = await connectError(server.url, { tls: { verify_ssl: true } });
    expect(again.message).toMatch(/^TLS certificate of/);
  });

  it("accepts it when ca_cert_path names its certificate", async () => {
    const server = await serveStreamable({ tls });
    const connection = await connect(server.url, { tls: { verify_ssl: true, ca_cert_path: certPath } });
    await expect(connection.callTool("echo", { text: "tls" }, CALL)).resolves.toMatchObject({
      structuredContent: { text: "tls" },
    });
  });

  it("says when ca_cert_path cannot be read", async () => {
    const server = await serveStreamable({ tls });
    const missing = join(dir, "missing.pem");
    const error = await connectError(server.url, { tls: { ca_cert_path: missing } });
    expect(error.message).toBe(`cannot read tls.ca_cert_path ${missing} (ENOENT)`);
  });
});
