import {
  Client as StatelessClient,
  StreamableHTTPClientTransport as StatelessTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { createApiKey } from "../support/api-keys.js";
import { describePostgres, freshPostgres } from "../support/backends.js";
import { fleetYaml } from "../support/gateway.js";
import { callJson, rawInitialize, rawMcpPost } from "../support/mcp-client.js";
import {
  type Replica,
  type RoundRobin,
  roundRobin,
  startReplicas,
  stopReplicas,
} from "../support/replicas.js";

// The command-bus budget (10 per second by default) would refuse part of the 100 calls.
const YAML = `
rate_limit: {rps: 1000, burst: 1000}
auth:
  enabled: true
  rate_limit: {max_attempts: 1000, window_seconds: 60, lockout_seconds: 30}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: bob, role: admin}
${fleetYaml()}`;

const mcpPost = (base: string, key: string, sessionId: string, body: unknown) =>
  rawMcpPost(base, sessionId, body, { "x-api-key": key });

const toolsList = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

await describePostgres("MCP sessions across replicas sharing PostgreSQL", () => {
  let store: SqlStore<unknown> & { schema: string };
  const replicas: Replica[] = [];
  let proxy: RoundRobin;
  let proxyBase: string;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    store = await freshPostgres();
    replicas.push(...(await startReplicas(YAML, 3, store)));
    for (const principal of ["alice", "bob"])
      keys[principal] = await createApiKey(replicas[0] as Replica, principal);
    proxy = await roundRobin(replicas.map((r) => r.base));
    proxyBase = proxy.base;
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await stopReplicas(replicas);
    await store?.close();
  });

  it("serves one client's session on whichever replica each request lands", async () => {
    const client = new Client({ name: "replica-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", proxyBase), {
      requestInit: { headers: { "x-api-key": keys.alice ?? "" } },
    });
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("gateway_call");
    for (let i = 0; i < 100; i++) {
      const { isError, json } = await callJson(client, "gateway_call", {
        calls: [{ mcp_server: "math", tool: "add", arguments: { a: i, b: 1 } }],
      });
      expect(isError).toBe(false);
      expect(json).toMatchObject({ success: true, succeeded: 1, failed: 0 });
      expect(json.results[0].result.content[0].text).toContain(String(i + 1));
    }
    // Every replica served part of the session (the proxy never sticks to one).
    expect(proxy.hits.every((n) => n > 30)).toBe(true);
    await transport.terminateSession();
    await client.close();
  }, 120_000);

  it("serves a 2026-07-28 client (no session) on whichever replica each request lands", async () => {
    const client = new StatelessClient(
      { name: "replica-test-stateless", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(
      new StatelessTransport(new URL("/mcp", proxyBase), {
        requestInit: { headers: { "x-api-key": keys.bob ?? "" } },
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const before = [...proxy.hits];
    for (let i = 0; i < 30; i++) {
      const result = await client.callTool({
        name: "gateway_call",
        arguments: { calls: [{ mcp_server: "math", tool: "add", arguments: { a: i, b: 2 } }] },
      });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
      expect(JSON.parse(text)).toMatchObject({ success: true, succeeded: 1 });
      expect(text).toContain(String(i + 2));
    }
    // Every replica answered part of the calls, with nothing shared between requests but the database.
    expect(proxy.hits.every((n, index) => n - (before[index] ?? 0) >= 10)).toBe(true);
    await client.close();
  }, 120_000);

  it("answers 404 on every replica once a session was ended through the proxy", async () => {
    const client = new Client({ name: "replica-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", proxyBase), {
      requestInit: { headers: { "x-api-key": keys.alice ?? "" } },
    });
    await client.connect(transport);
    await client.listTools();
    const sessionId = transport.sessionId ?? "";
    expect(sessionId).not.toBe("");
    // Every replica holds a copy of the session before it ends.
    for (const replica of replicas) {
      expect((await mcpPost(replica.base, keys.alice ?? "", sessionId, toolsList)).status).toBe(200);
    }
    await transport.terminateSession();
    for (const replica of replicas) {
      const answer = await mcpPost(replica.base, keys.alice ?? "", sessionId, toolsList);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });
    }
    await client.close();
  });

  it("hides a principal's session from another principal on another replica", async () => {
    const [first, second, third] = replicas as [Replica, Replica, Replica];
    const opened = await rawInitialize(first.base, { "x-api-key": keys.alice ?? "" });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    await opened.text();
    const stranger = await mcpPost(second.base, keys.bob ?? "", sessionId, toolsList);
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toMatchObject({ error: { code: -32001 } });
    // The session itself is alive: its principal uses it on the third replica, then on the second.
    expect((await mcpPost(third.base, keys.alice ?? "", sessionId, toolsList)).status).toBe(200);
    expect((await mcpPost(second.base, keys.alice ?? "", sessionId, toolsList)).status).toBe(200);
    expect((await mcpPost(second.base, keys.bob ?? "", sessionId, toolsList)).status).toBe(404);
  });

  it("answers 404 on any replica for a session id that was never handed out", async () => {
    for (const replica of replicas) {
      const answer = await mcpPost(
        replica.base,
        keys.alice ?? "",
        "00000000-0000-4000-8000-000000000000",
        toolsList,
      );
      expect(answer.status).toBe(404);
    }
  });
});
