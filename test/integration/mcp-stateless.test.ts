import { request as httpRequest } from "node:http";
import { resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import {
  envelope,
  STATELESS_REVISION,
  type StatelessAnswer,
  statelessPost,
} from "../support/stateless-post.js";

/**
 * MCP revision 2026-07-28 (stateless) on the same `/mcp` as the session revisions: each request
 * carries its `_meta` and the mirrored headers, no session is opened, and the answers carry
 * `resultType`. Against real gateways over loopback HTTP, with the arithmetic server as a child
 * process.
 */

const REVISION = STATELESS_REVISION;
const META = envelope();
const post = statelessPost;

const payloadOf = (result: Record<string, unknown> | undefined) =>
  JSON.parse(((result?.content ?? []) as { text: string }[])[0]?.text ?? "null");

/** A gateway listening on loopback, its background work started (the front door starts its servers). */
async function listening(yaml: string): Promise<{ gw: TestGateway; baseUrl: string }> {
  const gw = await startTestGateway(yaml);
  const baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  gw.gateway.startBackground();
  return { gw, baseUrl };
}

/** The tool names a stateless `tools/list` shows, with `headers` (credentials) added. */
async function toolNames(baseUrl: string, headers: Record<string, string> = {}): Promise<string[]> {
  const { body } = await post(baseUrl, "tools/list", {}, { headers });
  return ((body.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
}

const RICH = resolve("test/fixtures/servers/rich.mjs");
const META_ECHO = resolve("test/fixtures/servers/meta-echo.mjs");

/** A JSON-RPC message as a test reads it: an answer, or a notification. */
type Message = StatelessAnswer["body"] & { method?: string; params?: Record<string, unknown> };

/** The JSON-RPC messages of an SSE answer, in order. */
function eventsOf(text: string): Message[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

/** An open `subscriptions/listen` stream: the messages read so far, and a wait for the next that matches. */
async function openListen(baseUrl: string, notifications: Record<string, unknown>, id: string | number = 50) {
  const controller = new AbortController();
  const res = await fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    signal: controller.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": REVISION,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { notifications, _meta: META },
    }),
  });
  const messages: Message[] = [];
  let text = "";
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      const events = text.split("\n\n");
      text = events.pop() ?? "";
      for (const event of events) messages.push(...eventsOf(event));
    }
  })();
  return {
    status: res.status,
    messages,
    next: (method: string) => waitFor(() => messages.some((message) => message.method === method), 10_000),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

const MATH = `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  spare:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

describe("the egress endpoint, stateless", () => {
  let gw: TestGateway;
  let baseUrl: string;
  beforeAll(async () => {
    ({ gw, baseUrl } = await listening(MATH));
  });
  afterAll(async () => {
    await gw.close();
  });

  it("answers server/discover with the revisions it serves and what it declares", async () => {
    const { status, body } = await post(baseUrl, "server/discover");
    expect(status).toBe(200);
    expect(body.id).toBe(7);
    expect(body.result).toMatchObject({
      resultType: "complete",
      capabilities: { tools: {} },
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "airlock" } },
    });
    expect(body.result?.supportedVersions).toEqual(expect.arrayContaining([REVISION, "2025-11-25"]));
    expect(((body.result?.supportedVersions ?? []) as string[])[0]).toBe(REVISION);
  });

  it("lists the management tools, marked private to the caller, and opens no session", async () => {
    const { status, headers, body } = await post(baseUrl, "tools/list");
    expect(status).toBe(200);
    expect(headers.get("mcp-session-id")).toBeNull();
    expect(body.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const names = ((body.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
    expect(names).toContain("gateway_call");
  });

  it("runs a tool call through to the upstream, with the request's id and resultType", async () => {
    const { status, body } = await post(
      baseUrl,
      "tools/call",
      {
        name: "gateway_call",
        arguments: { calls: [{ mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } }] },
      },
      { id: 41 },
    );
    expect(status).toBe(200);
    expect(body.id).toBe(41);
    expect(body.result?.resultType).toBe("complete");
    const payload = payloadOf(body.result);
    expect(payload.succeeded).toBe(1);
    expect(JSON.stringify(payload.results[0])).toContain("5");
  });

  it("accepts an Mcp-Name sent in the Base64 sentinel form", async () => {
    const encoded = `=?base64?${Buffer.from("gateway_list").toString("base64")}?=`;
    const { status, body } = await post(
      baseUrl,
      "tools/call",
      { name: "gateway_list", arguments: {} },
      { headers: { "mcp-name": encoded } },
    );
    expect(status).toBe(200);
    expect(payloadOf(body.result).mcp_servers[0].mcp_server_id).toBe("math");
  });

  it("refuses headers that disagree with the body, or are missing, with 400 and -32020", async () => {
    const call = { name: "gateway_list", arguments: {} };
    const cases: [Record<string, string | null>, RegExp][] = [
      [{ "mcp-name": "gateway_stop" }, /Mcp-Name header value 'gateway_stop' does not match/],
      [{ "mcp-name": null }, /Mcp-Name header is required/],
      [{ "mcp-protocol-version": null }, /MCP-Protocol-Version header is required/],
      [{ "mcp-method": "tools/list" }, /tools\/list/],
    ];
    for (const [headers, message] of cases) {
      const { status, body } = await post(baseUrl, "tools/call", call, { headers, id: 9 });
      expect([status, body.id, body.error?.code], JSON.stringify(headers)).toEqual([400, 9, -32020]);
      expect(body.error?.message).toMatch(message);
    }
  });

  it("refuses an unsupported revision with 400 and -32022 before any upstream is chosen", async () => {
    const meta = { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const { status, body } = await post(
      baseUrl,
      "tools/call",
      { name: "gateway_start", arguments: { mcp_server: "spare" } },
      { meta, headers: { "mcp-protocol-version": "2099-01-01" }, id: 12 },
    );
    expect([status, body.id, body.error?.code]).toEqual([400, 12, -32022]);
    expect(body.error?.data).toEqual({
      supported: expect.arrayContaining([REVISION, "2025-11-25"]),
      requested: "2099-01-01",
    });
    const listed = await post(baseUrl, "tools/call", { name: "gateway_list", arguments: {} });
    const spare = payloadOf(listed.body.result).mcp_servers.find(
      (server: { mcp_server_id: string }) => server.mcp_server_id === "spare",
    );
    expect(spare.state).toBe("cold");
  });

  it("acknowledges a subscriptions/listen with nothing honored: egress sends no change notifications", async () => {
    const listen = await openListen(baseUrl, { toolsListChanged: true });
    try {
      expect(listen.status).toBe(200);
      await listen.next("notifications/subscriptions/acknowledged");
      expect(listen.messages[0]?.params).toEqual({
        notifications: {},
        _meta: { "io.modelcontextprotocol/subscriptionId": 50 },
      });
    } finally {
      await listen.close();
    }
  });

  it("answers an unknown method with 404 and -32601", async () => {
    const { status, body } = await post(baseUrl, "nothing/here", {}, { id: 3 });
    expect([status, body.id, body.error?.code]).toEqual([404, 3, -32601]);
  });

  it("answers the methods the revision removed as unknown, though sessions still have them", async () => {
    for (const method of ["ping", "logging/setLevel", "resources/subscribe", "initialize"]) {
      const params =
        method === "logging/setLevel"
          ? { level: "info" }
          : method === "resources/subscribe"
            ? { uri: "x://y" }
            : {};
      const { status, body } = await post(baseUrl, method, params, { id: 4 });
      expect([status, body.id, body.error?.code], method).toEqual([404, 4, -32601]);
    }
  });

  it("still tells a request with neither a session nor stateless _meta to initialize first", async () => {
    const res = await fetch(new URL("/mcp", baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toBe("Bad Request: No valid session ID provided");
  });
});

describe("the front door, stateless", () => {
  let gw: TestGateway;
  let baseUrl: string;
  beforeAll(async () => {
    ({ gw, baseUrl } = await listening(`tool_access: {mode: front_door}\n${MATH}`));
    await waitFor(async () => (await toolNames(baseUrl)).includes("add"), 20_000);
  });
  afterAll(async () => {
    await gw.close();
  });

  it("serves an SDK v2 client that negotiates 2026-07-28: upstream tools listed and called", async () => {
    const client = new Client(
      { name: "stateless-sdk-client", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("add");
      const result = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
      expect(JSON.stringify(result.content)).toContain("42");
    } finally {
      await client.close();
    }
  });

  it("names the gateway in each result's _meta", async () => {
    const { body } = await post(baseUrl, "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    expect(body.result?._meta).toMatchObject({
      "io.modelcontextprotocol/serverInfo": { name: "airlock", version: expect.any(String) },
    });
  });

  it("answers an unknown upstream tool as unknown, from its Mcp-Name before the body (id null)", async () => {
    const { status, body } = await post(
      baseUrl,
      "tools/call",
      { name: "no_such_tool", arguments: {} },
      { id: 5 },
    );
    expect([status, body.id, body.error?.code]).toEqual([404, null, -32601]);
  });

  it("answers a tool whose Mcp-Name disagrees with the body with -32020 and the request's id", async () => {
    const { status, body } = await post(
      baseUrl,
      "tools/call",
      { name: "no_such_tool", arguments: {} },
      { id: 6, headers: { "mcp-name": "add" } },
    );
    expect([status, body.id, body.error?.code]).toEqual([400, 6, -32020]);
  });
});

describe("stateless requests with authentication on", () => {
  let gw: TestGateway;
  let baseUrl: string;
  beforeAll(async () => {
    ({ gw, baseUrl } = await listening(`
tool_access: {mode: front_door}
auth:
  enabled: true
  role_assignments:
    - {principal: dev, role: developer}
    - {principal: watcher, role: viewer}
${MATH}`));
  });
  afterAll(async () => {
    await gw.close();
  });

  it("refuses a request without credentials with 401", async () => {
    const { status } = await post(baseUrl, "tools/list");
    expect(status).toBe(401);
  });

  it("decides each request by its own credentials, nothing left from the one before", async () => {
    const dev = await createApiKey(gw, "dev");
    const watcher = await createApiKey(gw, "watcher");
    const names = (key: string) => toolNames(baseUrl, { "x-api-key": key });
    await waitFor(async () => (await names(dev)).includes("add"), 20_000);
    expect(await names(dev)).toContain("add");
    expect(await names(watcher)).not.toContain("add");
    expect(await names(dev)).toContain("add");
    const refused = await post(
      baseUrl,
      "tools/call",
      { name: "add", arguments: { a: 1, b: 1 } },
      { headers: { "x-api-key": watcher }, id: 8 },
    );
    // Refused by its headers, before the body (and the id in it) was read.
    expect([refused.status, refused.body.id, refused.body.error?.code]).toEqual([404, null, -32601]);
    expect(refused.body.error?.message).toBe("Unknown tool: add");
  });

  it("refuses a denied tool by its Mcp-Name before reading the body", async () => {
    const watcher = await createApiKey(gw, "watcher");
    const dev = await createApiKey(gw, "dev");
    // A body announced but never sent: only an answer that does not wait for it arrives.
    const unsent = (key: string, tool: string) =>
      new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
        const req = httpRequest(new URL("/mcp", baseUrl), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": "100000",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": REVISION,
            "mcp-method": "tools/call",
            "mcp-name": tool,
            "x-api-key": key,
          },
        });
        req.on("response", (res) => {
          let body = "";
          res.on("data", (chunk) => {
            body += chunk;
          });
          res.on("end", () => resolveAnswer({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.write('{"jsonrpc":"2.0",');
        setTimeout(() => {
          req.destroy();
          reject(new Error("no answer before the body"));
        }, 1_000).unref();
      });
    const refused = await unsent(watcher, "add");
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32601, message: "Unknown tool: add" },
    });
    expect((await unsent(dev, "no_such_tool")).status).toBe(404);
    // A tool the caller may call waits for its body, as does a management tool.
    await expect(unsent(dev, "add")).rejects.toThrow("no answer before the body");
    await expect(unsent(watcher, "gateway_list")).rejects.toThrow("no answer before the body");
  });
});

/**
 * A front door over one upstream child process (`script`), for the tests of the enclosing block:
 * listening once the upstream's `tool` is listed, closed after the block.
 */
function frontDoorOver(script: string, tool: string): { readonly baseUrl: string } {
  const door = { baseUrl: "", gw: undefined as TestGateway | undefined };
  beforeAll(async () => {
    const opened = await listening(`
tool_access: {mode: front_door}
mcp_servers:
  upstream:
    command: [node, ${JSON.stringify(script)}]
`);
    door.gw = opened.gw;
    door.baseUrl = opened.baseUrl;
    await waitFor(async () => (await toolNames(door.baseUrl)).includes(tool), 20_000);
  });
  afterAll(async () => {
    await door.gw?.close();
  });
  return door;
}

describe("the front door, stateless, with an upstream that logs and serves resources", () => {
  const door = frontDoorOver(RICH, "log");

  /** A stateless call of the upstream's `log` tool, its raw answer read whole. */
  const callLog = async (logLevel?: string) => {
    const meta = logLevel ? { ...META, "io.modelcontextprotocol/logLevel": logLevel } : META;
    const res = await fetch(new URL("/mcp", door.baseUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": REVISION,
        "mcp-method": "tools/call",
        "mcp-name": "log",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 21,
        method: "tools/call",
        params: { name: "log", arguments: {}, _meta: meta },
      }),
    });
    const text = await res.text();
    return res.headers.get("content-type")?.startsWith("text/event-stream")
      ? eventsOf(text)
      : [JSON.parse(text)];
  };

  it("sends an upstream's log message only to a request that named a level it reaches", async () => {
    const without = await callLog();
    expect(without.map((m) => ("method" in m ? m.method : "answer"))).toEqual(["answer"]);
    const info = await callLog("info");
    expect(info.map((m) => ("method" in m ? m.method : "answer"))).toEqual([
      "notifications/message",
      "answer",
    ]);
    const error = await callLog("error");
    expect(error.map((m) => ("method" in m ? m.method : "answer"))).toEqual(["answer"]);
    expect(JSON.stringify(error[0]?.result)).toContain("logged");
  });

  it("carries the list changes a subscriptions/listen asked for, tagged with its id", async () => {
    const listen = await openListen(
      door.baseUrl,
      { toolsListChanged: true, resourceSubscriptions: ["rich://readme", "nowhere://x"], bogus: true },
      "sub-1",
    );
    try {
      await listen.next("notifications/subscriptions/acknowledged");
      expect(listen.messages[0]?.params).toEqual({
        notifications: { toolsListChanged: true, resourceSubscriptions: ["rich://readme"] },
        _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" },
      });
      const grown = await post(door.baseUrl, "tools/call", { name: "grow", arguments: {} });
      expect(JSON.stringify(grown.body.result)).toContain("grown");
      await listen.next("notifications/tools/list_changed");
      const changed = listen.messages.find((m) => m.method === "notifications/tools/list_changed");
      expect(changed?.params?._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": "sub-1" });
      expect(listen.messages.map((m) => m.method)).not.toContain("notifications/prompts/list_changed");
    } finally {
      await listen.close();
    }
  });

  it("answers a resource nobody serves with -32602, the revision's code", async () => {
    const { status, body } = await post(door.baseUrl, "resources/read", { uri: "nowhere://x" }, { id: 31 });
    expect([status, body.id, body.error?.code]).toEqual([200, 31, -32602]);
  });

  it("reads a resource with ttlMs 0 and cacheScope private", async () => {
    const { body } = await post(door.baseUrl, "resources/read", { uri: "rich://readme" });
    expect(body.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    expect(JSON.stringify(body.result?.contents)).toContain("rich://readme");
  });
});

describe("the front door, stateless, in front of a server that echoes the _meta it gets", () => {
  const door = frontDoorOver(META_ECHO, "meta");

  it("keeps the request's envelope to itself and passes the rest of _meta on", async () => {
    const meta = { ...META, "io.modelcontextprotocol/logLevel": "debug", "example.com/mark": "kept" };
    const { body } = await post(door.baseUrl, "tools/call", { name: "meta", arguments: {} }, { meta });
    const relayed = JSON.parse(((body.result?.content ?? []) as { text: string }[])[0]?.text ?? "null");
    expect(relayed).toMatchObject({ "example.com/mark": "kept" });
    expect(Object.keys(relayed).filter((key) => key.startsWith("io.modelcontextprotocol/"))).toEqual([]);
  });
});
