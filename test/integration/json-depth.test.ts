/**
 * One nesting-depth limit (`http.max_json_depth`, default 64) for every JSON a client sends over
 * HTTP: REST bodies and MCP messages (tool arguments of `gateway_call` and of the front door's
 * `tools/call` included), refused before anything runs or is recorded. And values nested past
 * what the gateway relays, coming back from an MCP server, fail with a clear error instead of
 * exhausting the stack.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARITHMETIC, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp, rawInitialize, rawMcpPost } from "../support/mcp-client.js";

const DEEP = resolve("test/fixtures/servers/deep.mjs");
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const STACK_TEXT = /call stack|RangeError/i;

const FLEET = `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  deep:
    command: [node, ${JSON.stringify(DEEP)}]
  deepschema:
    command: [node, ${JSON.stringify(DEEP)}]
    env: {DEEP_SCHEMA_LEVELS: "1500"}
`;

interface Running extends TestGateway {
  base: string;
}

async function start(yaml: string): Promise<Running> {
  const gw = await startTestGateway(yaml);
  return { ...gw, base: await gw.app.listen({ host: "127.0.0.1", port: 0 }) };
}

/** A raw POST of `text` to `/mcp` (in `session` when given). */
async function postMcp(base: string, text: string, session?: string) {
  const answer = await fetch(new URL("/mcp", base), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session && { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }),
    },
    body: text,
  });
  return { status: answer.status, session: answer.headers.get("mcp-session-id"), body: await answer.json() };
}

async function openSession(base: string): Promise<string> {
  const answer = await rawInitialize(base);
  await answer.text();
  return answer.headers.get("mcp-session-id") ?? "";
}

const eventCount = async (gw: TestGateway) => {
  await gw.gateway.services.eventStore.flush();
  return (await gw.gateway.services.eventStore.readAll({ limit: 100_000 })).length;
};

describe("egress, the default limit", () => {
  let gw: Running;
  beforeAll(async () => {
    gw = await start(FLEET);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("refuses a REST body nested deeper than 64 levels with 400 invalid_body, and registers nothing", async () => {
    const before = await eventCount(gw);
    const answer = await fetch(new URL("/api/mcp_servers", gw.base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"id":"deepone","command":["node","x.mjs"],"env":{"X":${nested(64)}}}`,
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: "invalid_body",
      detail: "request body has nesting deeper than 64 levels (http.max_json_depth)",
    });
    const listed = (await (await fetch(new URL("/api/mcp_servers/", gw.base))).json()) as {
      mcp_servers: { mcp_server_id: string }[];
    };
    expect(listed.mcp_servers.map((s) => s.mcp_server_id)).not.toContain("deepone");
    expect(await eventCount(gw)).toBe(before);

    // 64 levels are within the limit: the body is read (whatever the route then makes of it).
    const within = await fetch(new URL("/api/mcp_servers", gw.base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"id":"deepone","command":["node","x.mjs"],"env":{"X":${nested(62)}}}`,
    });
    expect(JSON.stringify(await within.json())).not.toContain("max_json_depth");
  });

  it("refuses a deeply nested initialize: no session is opened, nothing is stored", async () => {
    const before = await eventCount(gw);
    const initialize = `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"x","version":"1"},"capabilities":{"experimental":{"x":${nested(5000)}}}}}`;
    const answer = await postMcp(gw.base, initialize);
    expect(answer).toEqual({
      status: 400,
      session: null,
      body: {
        jsonrpc: "2.0",
        id: "init-1",
        error: {
          code: -32600,
          message: "Invalid Request: message has nesting deeper than 64 levels (http.max_json_depth)",
        },
      },
    });
    expect(await eventCount(gw)).toBe(before);
  });

  it("refuses gateway_call arguments nested past the limit before the call runs, and records nothing", async () => {
    const session = await openSession(gw.base);
    const before = await eventCount(gw);
    // Message, params, arguments, calls, the call, its arguments: 6 levels, so 58 arrays make 64.
    const call = (id: number, levels: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"gateway_call","arguments":{"calls":[{"mcp_server":"math","tool":"add","arguments":{"a":1,"b":2,"x":${nested(levels)}}}]}}}`;
    for (const levels of [59, 5000]) {
      const refused = await postMcp(gw.base, call(levels, levels), session);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ id: levels, error: { code: -32600 } });
      expect(JSON.stringify(refused.body)).not.toMatch(STACK_TEXT);
    }
    expect(await eventCount(gw)).toBe(before);
    // A batch has no one id to answer.
    const batch = await postMcp(gw.base, `[${call(9, 59)}]`, session);
    expect(batch.body).toMatchObject({ id: null, error: { code: -32600 } });

    const within = await postMcp(gw.base, call(7, 58), session);
    expect(within.status).toBe(200);
    expect(JSON.stringify(within.body)).toContain('\\"succeeded\\":1');
  });

  it("fails a call whose result nests past what the gateway relays, with a clear error, and goes on", async () => {
    const client = await connectHttp(gw.base);
    try {
      for (const levels of [1500, 50_000]) {
        const { json } = await callJson(client, "gateway_call", {
          calls: [{ mcp_server: "deep", tool: "deep", arguments: { levels } }],
        });
        expect(json.results[0]).toMatchObject({
          success: false,
          error_type: "ToolInvocationError",
          error: "the result nests deeper than 1000 levels, more than the gateway relays",
        });
      }
      const fine = await callJson(client, "gateway_call", {
        calls: [{ mcp_server: "deep", tool: "deep", arguments: { levels: 900 } }],
      });
      expect(fine.json.results[0].success).toBe(true);
      const events = await gw.gateway.services.eventStore.readAll({ limit: 100_000 });
      expect(JSON.stringify(events)).not.toMatch(STACK_TEXT);
      expect(JSON.stringify(events)).toContain("more than the gateway relays");
    } finally {
      await client.close();
    }
  });

  it("refuses to start a server whose tool schema nests past what the gateway relays, saying so", async () => {
    const client = await connectHttp(gw.base);
    try {
      const { text } = await callJson(client, "gateway_start", { mcp_server: "deepschema" });
      expect(text).toContain("tool 'deep' nests deeper than 1000 levels");
      expect(text).not.toMatch(STACK_TEXT);
    } finally {
      await client.close();
    }
  });
});

describe("the front door, a limit set in the configuration", () => {
  let gw: Running;
  beforeAll(async () => {
    gw = await start(`tool_access: {mode: front_door}\nhttp: {max_json_depth: 10}\n${FLEET}`);
    await fetch(new URL("/api/mcp_servers/deep/start", gw.base), { method: "POST" });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("applies the configured limit to REST bodies and to tools/call arguments", async () => {
    const rest = await fetch(new URL("/api/mcp_servers", gw.base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"id":"x","command":["node"],"env":{"X":${nested(9)}}}`,
    });
    expect(await rest.json()).toEqual({
      error: "invalid_body",
      detail: "request body has nesting deeper than 10 levels (http.max_json_depth)",
    });
    const session = await openSession(gw.base);
    const call = (levels: number) =>
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deep","arguments":{"levels":1,"x":${nested(levels)}}}}`;
    const refused = await postMcp(gw.base, call(8), session);
    expect(refused.body).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: {
        code: -32600,
        message: "Invalid Request: message has nesting deeper than 10 levels (http.max_json_depth)",
      },
    });
    expect((await postMcp(gw.base, call(7), session)).status).toBe(200);
  });

  it("answers a relayed answer too deep to serialize with an error instead of leaving the client waiting", async () => {
    const session = await openSession(gw.base);
    const read = (uri: string) =>
      rawMcpPost(gw.base, session, { jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri } });
    const deep = await read("deep://6000");
    expect(await deep.json()).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32603, message: "Internal error: the answer nests too deeply to be sent" },
    });
    expect((await read("deep://100")).status).toBe(200);
  });
});
