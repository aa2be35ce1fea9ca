import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp, rawInitialize, rawMcpPost } from "../support/mcp-client.js";

let gw: TestGateway;
let client: Client;
let baseUrl: string;

beforeAll(async () => {
  gw = await startTestGateway();
  baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  client = await connectHttp(baseUrl);
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

describe("the MCP endpoint over streamable HTTP (egress)", () => {
  it("lists the management tools with complete input schemas", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "gateway_list",
        "gateway_status",
        "gateway_details",
        "gateway_tools",
        "gateway_start",
        "gateway_stop",
        "gateway_call",
        "gateway_warm",
        "gateway_health",
      ]),
    );
    expect(names).toHaveLength(22);
    const call = tools.find((t) => t.name === "gateway_call");
    expect(call?.inputSchema).toMatchObject({ type: "object", required: ["calls"] });
    expect(tools.every((t) => typeof t.description === "string" && t.description.length > 0)).toBe(true);
  });

  it("gateway_list returns servers, groups and runtime servers", async () => {
    const { json, isError } = await callJson(client, "gateway_list");
    expect(isError).toBe(false);
    expect(json.mcp_servers.map((s: { mcp_server_id: string }) => s.mcp_server_id)).toEqual(
      expect.arrayContaining(["math", "text", "ctl", "broken"]),
    );
    expect(json.groups).toEqual([]);
    expect(json.runtime_mcp_servers).toEqual([]);
    const filtered = await callJson(client, "gateway_list", { state_filter: "nonsense" });
    expect(filtered.json.mcp_servers).toEqual([]);
  });

  it("gateway_start starts a server and returns its tool names", async () => {
    const { json } = await callJson(client, "gateway_start", { mcp_server: "text" });
    expect(json).toEqual({
      mcp_server: "text",
      state: "ready",
      tools: expect.arrayContaining(["echo", "reverse"]),
    });
  });

  it("gateway_tools lists tools with digests, starting a cold server", async () => {
    const { json } = await callJson(client, "gateway_tools", { mcp_server: "math" });
    expect(json).toMatchObject({ mcp_server: "math", state: "ready", predefined: false });
    expect(json.tools[0]).toEqual({
      name: expect.any(String),
      description: expect.any(String),
      inputSchema: expect.any(Object),
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      ...(json.tools[0].outputSchema && { outputSchema: expect.any(Object) }),
    });
  });

  it("gateway_details returns the detail object with its tool policy", async () => {
    const { json } = await callJson(client, "gateway_details", { mcp_server: "math" });
    expect(json).toMatchObject({ mcp_server_id: "math", state: "ready", alive: true });
    expect(json.tools_policy).toEqual({ active: false, unrestricted: true });
  });

  it("gateway_status describes this replica with indicators and a formatted view", async () => {
    const { json } = await callJson(client, "gateway_status");
    const math = json.mcp_servers.find((s: { id: string }) => s.id === "math");
    expect(math).toMatchObject({ indicator: "[READY]", state: "ready", mode: "subprocess", dead: null });
    const broken = json.mcp_servers.find((s: { id: string }) => s.id === "broken");
    expect(broken).toMatchObject({ indicator: "[COLD]", note: "Will start on first request" });
    expect(json.scope).toBe("replica");
    expect(json.summary).toMatchObject({ total_mcp_servers: 4, healthy_mcp_servers: 2 });
    expect(json.replica.instance_id).toBe(gw.gateway.services.instance.instance_id);
    expect(json.formatted).toContain("[READY] math");
  });

  it("gateway_warm starts the named servers and reports unknown ones as failed", async () => {
    const { json } = await callJson(client, "gateway_warm", { mcp_servers: "math, ghost" });
    expect(json.failed).toEqual([{ id: "ghost", error: "McpServer not found" }]);
    expect([...json.warmed, ...json.already_warm]).toEqual(["math"]);
    expect(json.summary).toMatch(/failed 1/);
  });

  it("gateway_health reports servers by state and the rate-limit configuration", async () => {
    const { json } = await callJson(client, "gateway_health");
    expect(json.mcp_servers.total).toBe(4);
    expect(json.mcp_servers.by_state.ready).toBeGreaterThanOrEqual(1);
    expect(json.security.rate_limiting.config).toEqual({
      requests_per_second: 10,
      burst_size: 20,
      scope: "all_callers",
    });
    expect(json).toMatchObject({ scope: "replica", replica: { instance_id: expect.any(String) } });
    expect(["healthy", "degraded"]).toContain(json.status);
  });

  it("gateway_call runs one call and returns the upstream result", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } }],
    });
    expect(json).toMatchObject({ success: true, total: 1, succeeded: 1, failed: 0, cancelled: 0 });
    const [result] = json.results;
    expect(result).toMatchObject({
      index: 0,
      success: true,
      error: null,
      error_type: null,
      truncated: false,
      continuation_id: null,
    });
    expect(result.call_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.result.content[0].text).toContain("5");
  });

  it("gateway_call runs a batch concurrently and keeps the order of results", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "math", tool: "multiply", arguments: { a: 6, b: 7 } },
        { mcp_server: "text", tool: "uppercase", arguments: { text: "abc" } },
        { mcp_server: "math", tool: "divide", arguments: { a: 1, b: 0 } },
      ],
      max_concurrency: 3,
    });
    expect(json.total).toBe(3);
    expect(json.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2]);
    expect(json.results[0].result.content[0].text).toContain("42");
    expect(json.results[1].result.content[0].text).toContain("ABC");
    expect(json.results[2]).toMatchObject({ success: false, error_type: "ToolError" });
    expect(json).toMatchObject({ success: false, succeeded: 2, failed: 1 });
  });

  it("gateway_call refuses a batch naming an unknown server or tool before running any call", async () => {
    const before = gw.gateway.services.fleet.require("text").stats.total_invocations;
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "text", tool: "echo", arguments: { message: "hi" } },
        { mcp_server: "ghost", tool: "x" },
        { mcp_server: "math", tool: "no_such_tool" },
      ],
    });
    expect(json).toMatchObject({
      success: false,
      total: 3,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      elapsed_ms: expect.any(Number),
      results: [],
      error: "Validation failed",
    });
    expect(json.validation_errors).toEqual([
      { index: 1, field: "mcp_server", message: "McpServer 'ghost' not found" },
      { index: 2, field: "tool", message: "Tool 'no_such_tool' not found in mcp_server 'math'" },
    ]);
    expect(gw.gateway.services.fleet.require("text").stats.total_invocations).toBe(before);
  });

  it("gateway_call clamps a call's own timeout to 1-300 seconds like the batch's", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 }, timeout: 0 },
        { mcp_server: "math", tool: "add", arguments: { a: 2, b: 2 }, timeout: -5 },
      ],
    });
    expect(json).toMatchObject({ success: true, succeeded: 2 });
  });

  it("gateway_call with fail_fast cancels the calls not yet started", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "math", tool: "divide", arguments: { a: 1, b: 0 } },
        { mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } },
        { mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } },
      ],
      max_concurrency: 1,
      fail_fast: true,
    });
    expect(json.results[0].success).toBe(false);
    expect(json.results.slice(1).map((r: { error_type: string }) => r.error_type)).toEqual([
      "CancellationError",
      "CancellationError",
    ]);
    expect(json.cancelled).toBe(2);
  });

  it("gateway_call times a slow call out at its per-call timeout", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "sleep", arguments: { ms: 5000 }, timeout: 1 }],
    });
    expect(json.results[0]).toMatchObject({ success: false, error_type: "ToolTimeoutError" });
    expect(json.results[0].elapsed_ms).toBeLessThan(4000);
  });

  it("passes the server's env to the child", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "ctl", tool: "env", arguments: { name: "AIRLOCK_TEST_MARKER" } }],
    });
    expect(json.results[0].result.content[0].text).toContain("marker-value");
  });

  it("answers a tool whose feature is not served yet with a clear not-configured failure", async () => {
    const { json, isError } = await callJson(client, "gateway_discover");
    expect(isError).toBe(false);
    expect(json).toEqual({
      error: "discovery is not configured",
      error_type: "NotConfiguredError",
      details: { feature: "discovery" },
    });
  });

  it("answers a continuation lookup with found:false while no result was truncated", async () => {
    const fetched = await callJson(client, "gateway_fetch_continuation", {
      continuation_id: "cont_x_0_deadbeef",
    });
    expect(fetched.json).toMatchObject({ found: false, error: expect.any(String) });
    const deleted = await callJson(client, "gateway_delete_continuation", {
      continuation_id: "cont_x_0_deadbeef",
    });
    expect(deleted.json).toMatchObject({ deleted: false, continuation_id: "cont_x_0_deadbeef" });
  });

  it("refuses an unknown server id before running, as an isError result (spec 2 §4, shape 2)", async () => {
    for (const tool of ["gateway_start", "gateway_stop", "gateway_tools", "gateway_details"]) {
      const raw = await client.callTool({ name: tool, arguments: { mcp_server: "ghost" } });
      expect([tool, raw.isError]).toEqual([tool, true]);
      expect(raw.content).toEqual([
        { type: "text", text: `Error executing tool ${tool}: unknown_mcp_server: ghost` },
      ]);
    }
  });

  it("reports an unknown group as a failed run, not a refusal", async () => {
    // Written out, as spec 2's shape 1 says it: `isError: false`.
    const raw = await client.callTool({ name: "gateway_group_rebalance", arguments: { group: "ghost" } });
    expect(raw.isError).toStrictEqual(false);
    const rebalance = await callJson(client, "gateway_group_rebalance", { group: "ghost" });
    expect(rebalance.json).toEqual({
      error: "unknown_mcp_server: ghost",
      error_type: "ValueError",
      details: {},
    });
  });

  it("refuses invalid arguments before running, as an isError result", async () => {
    const result = await callJson(client, "gateway_start", {});
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Error executing tool gateway_start: invalid_mcp_server_id: /);
  });

  it("answers an unknown tool with JSON-RPC -32601", async () => {
    await expect(client.callTool({ name: "gateway_nope", arguments: {} })).rejects.toMatchObject({
      code: -32601,
    });
  });

  it("gateway_stop stops a running server", async () => {
    const { json } = await callJson(client, "gateway_stop", { mcp_server: "text" });
    expect(json).toEqual({ stopped: "text", reason: "user_request" });
  });

  it("answers GET on the endpoint with 405 in the egress topology", async () => {
    const res = await fetch(new URL("/mcp", baseUrl), { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
  });

  const initialize = (headers: Record<string, string> = {}) => rawInitialize(baseUrl, headers);

  it("refuses a foreign Origin with 403 (DNS-rebinding protection), accepting loopback ones", async () => {
    expect((await initialize({ origin: "https://evil.example" })).status).toBe(403);
    const local = await initialize({ origin: "http://localhost:3000" });
    expect(local.status).toBe(200);
    await fetch(new URL("/mcp", baseUrl), {
      method: "DELETE",
      headers: { "mcp-session-id": local.headers.get("mcp-session-id") ?? "" },
    });
  });

  it("answers a GET or DELETE without a session id with 400, and a body over 4 MiB with a JSON-RPC 413", async () => {
    for (const method of ["DELETE"] as const) {
      const res = await fetch(new URL("/mcp", baseUrl), { method, headers: { accept: "text/event-stream" } });
      expect([method, res.status]).toEqual([method, 400]);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        "Mcp-Session-Id",
      );
    }
    const big = await fetch(new URL("/mcp", baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "ping",
        params: { pad: "x".repeat(5 * 1024 * 1024) },
      }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
  });

  it("refuses a Host that does not name the loopback interface with 403", async () => {
    const res = await gw.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { host: "attacker.example:8080", "content-type": "application/json" },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.statusCode).toBe(403);
  });

  it("answers each egress request with one JSON body, not an event stream", async () => {
    const res = await initialize();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const session = res.headers.get("mcp-session-id") ?? "";
    const listed = await rawMcpPost(baseUrl, session, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await listed.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(body.id).toBe(2);
    expect(body.result.tools.map((tool) => tool.name)).toContain("gateway_call");
    await fetch(new URL("/mcp", baseUrl), { method: "DELETE", headers: { "mcp-session-id": session } });
  });

  it("ends a session on DELETE; a later request with it gets 404", async () => {
    const res = await initialize();
    const session = res.headers.get("mcp-session-id") ?? "";
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const closed = await fetch(new URL("/mcp", baseUrl), {
      method: "DELETE",
      headers: { "mcp-session-id": session },
    });
    expect(closed.status).toBe(200);
    const after = await fetch(new URL("/mcp", baseUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
  });

  it("answers an unsupported MCP-Protocol-Version with 400", async () => {
    const res = await initialize();
    const session = res.headers.get("mcp-session-id") ?? "";
    const bad = await fetch(new URL("/mcp", baseUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "1999-01-01",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(bad.status).toBe(400);
  });

  it("answers a request for an unknown session with 404", async () => {
    const res = await fetch(new URL("/mcp", baseUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "nope",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
  });
});
