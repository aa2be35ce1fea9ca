import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import type { ToolResult } from "../support/mcp-client.js";
import { Peer } from "../support/ws-peer.js";

const authYaml = (attempts = 1000) => `
auth:
  enabled: true
  rate_limit: {max_attempts: ${attempts}, window_seconds: 60, lockout_seconds: 30}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: bob, role: viewer}
    - {principal: carol, role: auditor}
    - {principal: dave, role: developer, scope: "tenant:t1"}
    - {principal: erin, role: service-account}
${fleetYaml()}`;

const keyFor = (gw: TestGateway, principal: string, extra: { expires_at?: number } = {}) =>
  createApiKey(gw, principal, { expiresAt: extra.expires_at ?? null });

let gw: TestGateway;
let base: string;
const keys: Record<string, string> = {};

const get = (url: string, key?: string, headers: Record<string, string> = {}) =>
  gw.app.inject({ method: "GET", url, headers: { ...(key && { "x-api-key": key }), ...headers } });

beforeAll(async () => {
  gw = await startTestGateway(authYaml());
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  for (const name of ["alice", "bob", "carol", "dave", "erin", "nobody"]) keys[name] = await keyFor(gw, name);
});
afterAll(async () => {
  await gw?.close();
});

describe("REST authentication", () => {
  it("refuses a request without credentials with the flat 401 body and a challenge", async () => {
    const response = await get("/api/mcp_servers/");
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toContain("ApiKey");
    expect(response.json()).toEqual({
      error: "authentication_failed",
      message: "No valid credentials provided",
      details: { auth_method: "none", expected_methods: ["api_key"] },
    });
  });

  it("answers the spec's messages for a malformed, a revoked and an expired key", async () => {
    expect((await get("/api/mcp_servers/", "sk_wrong")).json().message).toBe(
      "Invalid API key format: must start with 'mcp_'",
    );
    const revoked = await keyFor(gw, "bob");
    const { repositories } = gw.gateway.services;
    const stored = (await repositories.apiKeys.list("bob", true)).at(-1);
    await repositories.apiKeys.revoke(stored?.key_id ?? "", {
      revoked_by: "test",
      reason: "",
      at: Date.now() / 1000,
    });
    expect((await get("/api/mcp_servers/", revoked)).json().message).toBe("API key has been revoked");
    const expired = await keyFor(gw, "bob", { expires_at: Date.now() / 1000 - 10 });
    expect((await get("/api/mcp_servers/", expired)).json().message).toBe("API key has expired");
    expect((await get("/api/mcp_servers/", "mcp_unknown")).json().message).toBe(
      "No valid credentials provided",
    );
  });

  it("refuses an API key sent as Authorization: Bearer", async () => {
    const response = await get("/api/mcp_servers/", undefined, { authorization: `Bearer ${keys.bob}` });
    expect(response.statusCode).toBe(401);
    expect(response.json().details.reason).toBe(
      "an API key goes in the API-key header, not in Authorization: Bearer",
    );
    expect(response.body).not.toContain(keys.bob as string);
  });

  it("lets a viewer read and refuses it changes with 403 AccessDeniedError", async () => {
    expect((await get("/api/mcp_servers/", keys.bob)).statusCode).toBe(200);
    const me = await get("/api/system/me", keys.bob);
    expect(me.json()).toEqual({ authenticated: true, principal: { id: "bob", type: "api_key" } });
    const start = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/math/start",
      headers: { "x-api-key": keys.bob },
    });
    expect(start.statusCode).toBe(403);
    expect(start.json().error.code).toBe("AccessDeniedError");
  });

  it("denies a principal holding no role everywhere but /system", async () => {
    expect((await get("/api/mcp_servers/", keys.nobody)).statusCode).toBe(403);
    expect((await get("/api/system/", keys.nobody)).statusCode).toBe(200);
    expect((await get("/api/groups/", keys.nobody)).statusCode).toBe(403);
  });

  it("passes a tenant-scoped grant only on tenant-aware routes", async () => {
    expect((await get("/api/mcp_servers/", keys.dave)).statusCode).toBe(403);
    expect((await get("/api/mcp_servers/math/tools/history", keys.dave)).statusCode).toBe(200);
  });

  it("lets only admin reach /auth", async () => {
    expect((await get("/api/auth/roles", keys.bob)).statusCode).toBe(403);
    expect((await get("/api/auth/roles", keys.alice)).statusCode).not.toBe(403);
  });

  it("records last_used_at of a key that was used (written in batches, at the latest on shutdown)", async () => {
    const own = await startTestGateway(authYaml());
    const key = await keyFor(own, "erin");
    const { repositories } = own.gateway.services;
    expect((await repositories.apiKeys.list("erin", true))[0]?.last_used_at).toBeNull();
    await own.app.inject({ method: "GET", url: "/api/system/", headers: { "x-api-key": key } });
    await own.close();
    expect((await repositories.apiKeys.list("erin", true))[0]?.last_used_at).toEqual(expect.any(Number));
  });
});

describe("MCP authentication and visibility (egress)", () => {
  const connectAs = async (key: string) => {
    const client = new Client({ name: "auth-tests", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    return client;
  };

  it("answers 401 to an initialize without credentials", async () => {
    const response = await fetch(new URL("/mcp", base), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("authentication_failed");
  });

  it("lists all 22 tools to a viewer and refuses what it may not call with the spec's text", async () => {
    const client = await connectAs(keys.bob as string);
    try {
      expect((await client.listTools()).tools).toHaveLength(22);
      const list = (await client.callTool({ name: "gateway_list", arguments: {} })) as ToolResult;
      expect(list.isError).not.toBe(true);
      const start = (await client.callTool({
        name: "gateway_start",
        arguments: { mcp_server: "math" },
      })) as ToolResult;
      expect(start).toMatchObject({
        isError: true,
        content: [
          {
            type: "text",
            text: "Not authorized to call 'gateway_start': mcp_servers:lifecycle permission required",
          },
        ],
      });
    } finally {
      await client.close();
    }
  });

  it("checks tool:invoke per call: a grant for one server runs its calls and refuses the others", async () => {
    const { repositories, authorizer } = gw.gateway.services;
    const now = Date.now() / 1000;
    await repositories.roles.create({
      role_name: "math-invoker",
      description: "",
      permissions: ["tool:invoke:math"],
      created_at: now,
      created_by: "test",
    });
    await repositories.roleAssignments.assign({
      principal_id: "frank",
      role_name: "math-invoker",
      scope: "global",
      assigned_by: "test",
      assigned_at: now,
    });
    authorizer.invalidate();
    const client = await connectAs(await keyFor(gw, "frank"));
    try {
      const answer = (await client.callTool({
        name: "gateway_call",
        arguments: {
          calls: [
            { mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } },
            { mcp_server: "text", tool: "echo", arguments: { text: "hi" } },
          ],
        },
      })) as ToolResult;
      expect(answer.isError).not.toBe(true);
      const batch = JSON.parse(answer.content[0]?.text ?? "");
      expect(batch).toMatchObject({ success: false, total: 2, succeeded: 1, failed: 1 });
      expect(batch.results[0]).toMatchObject({ success: true, error_type: null });
      expect(batch.results[1]).toMatchObject({
        success: false,
        error_type: "AccessDeniedError",
        error: "tool:invoke:text permission required",
      });
    } finally {
      await client.close();
    }
  });

  it("keeps a session to the principal that opened it", async () => {
    const client = await connectAs(keys.bob as string);
    try {
      const session = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
      const response = await fetch(new URL("/mcp", base), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-06-18",
          "x-api-key": keys.alice as string,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }),
      });
      expect(response.status).toBe(404);
    } finally {
      await client.close();
    }
  });
});

describe("WebSocket authorization", () => {
  it.each(["events", "state"])(
    "refuses a principal without audit:read and admits an auditor (/api/ws/%s)",
    async (path) => {
      const ws = base.replace("http", "ws");
      const viewer = new Peer(`${ws}/api/ws/${path}`, { headers: { "x-api-key": keys.bob as string } });
      expect(await viewer.closed).toMatchObject({ code: 1008 });
      const anonymous = new Peer(`${ws}/api/ws/${path}`);
      expect(await anonymous.closed).toMatchObject({ code: 1008 });
      const auditor = new Peer(`${ws}/api/ws/${path}`, { headers: { "x-api-key": keys.carol as string } });
      await auditor.subscribe({ event_types: ["*"] });
      auditor.close();
    },
  );
});

describe("WebSocket of a server's log lines", () => {
  it("admits a holder of mcp_servers:read and refuses a principal without it", async () => {
    const ws = base.replace("http", "ws");
    const auditor = new Peer(`${ws}/api/ws/providers/math/logs`, {
      headers: { "x-api-key": keys.carol as string },
    });
    expect(await auditor.closed).toEqual({ code: 1008, reason: "Access denied: mcp_servers:read required" });
    const viewer = new Peer(`${ws}/api/ws/providers/math/logs`, {
      headers: { "x-api-key": keys.bob as string },
    });
    gw.gateway.services.fleet.require("math").logs.append("stderr", "seen by a viewer");
    await viewer.next((f) => f.content === "seen by a viewer");
    viewer.close();
  });
});

describe("the login-attempt lockout", () => {
  it("locks a client address out after max_attempts failures, with 429 and Retry-After", async () => {
    const own = await startTestGateway(authYaml(5));
    try {
      const good = await keyFor(own, "alice");
      for (let i = 0; i < 5; i++) {
        const response = await own.app.inject({
          method: "GET",
          url: "/api/system/",
          headers: { "x-api-key": "mcp_bad" },
        });
        expect(response.statusCode).toBe(401);
      }
      const locked = await own.app.inject({
        method: "GET",
        url: "/api/system/",
        headers: { "x-api-key": good },
      });
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers["retry-after"])).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });
});

describe("front door visibility with auth on", () => {
  it("shows a viewer the nine management tools and no upstream tool; a hidden tool answers -32601", async () => {
    const own = await startTestGateway(
      authYaml().replace("auth:\n", "tool_access:\n  mode: front_door\nauth:\n"),
    );
    const url = await own.app.listen({ host: "127.0.0.1", port: 0 });
    own.gateway.startBackground();
    const viewerKey = await keyFor(own, "bob");
    const devKey = await keyFor(own, "erin");
    const connect = async (key: string) => {
      const client = new Client({ name: "auth-tests", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", url), {
          requestInit: { headers: { "x-api-key": key } },
        }),
      );
      return client;
    };
    const viewer = await connect(viewerKey);
    const service = await connect(devKey);
    try {
      const names = (await viewer.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(
        [
          "gateway_details",
          "gateway_discovered",
          "gateway_group_list",
          "gateway_health",
          "gateway_list",
          "gateway_metrics",
          "gateway_sources",
          "gateway_status",
          "gateway_tools",
        ].sort(),
      );
      const error = await viewer
        .callTool({ name: "gateway_start", arguments: { mcp_server: "math" } })
        .catch((e) => e);
      expect((error as McpError).code).toBe(-32601);
      // A service account may invoke tools: it sees the upstream tools and none of the management ones.
      await waitFor(async () => (await service.listTools()).tools.some((t) => t.name === "add"), 20_000);
      const serviceNames = (await service.listTools()).tools.map((t) => t.name);
      expect(serviceNames.filter((n) => n.startsWith("gateway_"))).toEqual([]);
    } finally {
      await viewer.close();
      await service.close();
      await own.close();
    }
  });
});
