/**
 * Socket timeouts against slow or idle clients (`http.headers_timeout_s`, `request_timeout_s`,
 * `keep_alive_timeout_s`), on real sockets: slow headers and slow bodies are cut, an idle kept-alive
 * connection is closed, and what legitimately lasts longer (a slow tool call, the front door's GET
 * stream, a WebSocket event stream) is not. The timeouts are set to 1-2 s here; the defaults are
 * 10, 30 and 72 s.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";
import { rawInitialize, rawMcpPost } from "../support/mcp-client.js";
import { Peer } from "../support/ws-peer.js";

let gw: TestGateway;
let base: string;
let port: number;

beforeAll(async () => {
  gw = await startTestGateway(`
tool_access: {mode: front_door}
http: {headers_timeout_s: 1, request_timeout_s: 2, keep_alive_timeout_s: 1}
mcp_servers:
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
`);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  port = Number(new URL(base).port);
  await (await fetch(new URL("/api/mcp_servers/ctl/start", base), { method: "POST" })).text();
});
afterAll(async () => {
  await gw?.close();
});

/** A raw connection: what the server sent, and a promise of its close (rejecting after `withinMs`). */
async function rawConnection(withinMs: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${withinMs} ms`)), withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { socket, closed, received: () => received };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("HTTP socket timeouts", () => {
  it("cuts a request whose headers do not arrive within the headers timeout", async () => {
    // Headers 1 s, checked every second: cut within 2 s and some slack (Node's default is 60 s).
    const connection = await rawConnection(4_000);
    connection.socket.write(`GET /health/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
    const trickle = setInterval(() => connection.socket.write("a"), 200);
    try {
      await connection.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("cuts a request whose body does not arrive within the request timeout", async () => {
    const connection = await rawConnection(5_000);
    connection.socket.write(
      `POST /api/mcp_servers HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":"x",`,
    );
    // A byte every 200 ms keeps the socket busy: only the request timeout can end it.
    const trickle = setInterval(() => connection.socket.write(" "), 200);
    try {
      await connection.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
    const listed = (await (await fetch(new URL("/api/mcp_servers/", base))).json()) as {
      mcp_servers: unknown[];
    };
    expect(listed.mcp_servers).toHaveLength(1);
  });

  it("closes a kept-alive connection left idle past the keep-alive timeout", async () => {
    const connection = await rawConnection(4_000);
    connection.socket.write(`GET /health/live HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(connection.received()).toMatch(/keep-alive/i);
  });

  it("cuts none of a tool call, a GET stream or a WebSocket stream that outlast every timeout", async () => {
    const init = await rawInitialize(base);
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    const stream = await fetch(new URL("/mcp", base), {
      headers: {
        "mcp-session-id": session,
        accept: "text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    const streamEnded = reader?.read().then(() => "ended");
    const peer = new Peer(`${base.replace("http", "ws")}/api/ws/events`);
    await peer.subscribe({});
    let peerClosed = false;
    void peer.closed.then(() => {
      peerClosed = true;
    });

    // Longer than the request timeout (2 s) and every other: answered all the same.
    const call = await rawMcpPost(base, session, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "sleep", arguments: { ms: 3_500 } },
    });
    expect(call.status).toBe(200);
    expect(JSON.stringify(await call.json())).toContain("slept 3500 ms");

    expect(await Promise.race([streamEnded, sleep(200).then(() => "open")])).toBe("open");
    expect(peerClosed).toBe(false);
    const from = peer.frames.length;
    peer.send({ type: "ping" });
    await peer.next((frame) => frame.type === "pong", from);
    peer.close();
    await reader?.cancel();
  });
});
