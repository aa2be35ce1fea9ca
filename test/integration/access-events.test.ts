import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DomainEvent } from "../../src/domain/events.js";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";

/** Spec 2 §6: authentication and authorization outcomes are domain events (published and stored). */
let gw: TestGateway;
const keys: Record<string, string> = {};
const events: DomainEvent[] = [];

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: bob, role: viewer}
${fleetYaml()}`);
  for (const name of ["alice", "bob"]) keys[name] = await createApiKey(gw, name);
  gw.gateway.services.bus.subscribe((event) => events.push(event));
});
afterAll(async () => {
  await gw?.close();
});

const request = (method: "GET" | "POST", url: string, key?: string) =>
  gw.app.inject({ method, url, headers: key ? { "x-api-key": key } : {} });
const ofType = (type: string) => events.filter((event) => event.type === type);

it("publishes every failed authentication, naming the method and the message, never the credential", async () => {
  events.length = 0;
  expect((await request("GET", "/api/mcp_servers/", "mcp_not-a-key-at-all")).statusCode).toBe(401);
  expect((await request("GET", "/api/mcp_servers/", "sk-live-wrong-format")).statusCode).toBe(401);
  expect((await request("GET", "/api/mcp_servers/")).statusCode).toBe(401);
  const failed = ofType("AuthenticationFailed");
  expect(
    failed.map((e) => [(e as { auth_method: string }).auth_method, (e as { reason: string }).reason]),
  ).toEqual([
    ["api_key", "No valid credentials provided"],
    ["api_key", "Invalid API key format: must start with 'mcp_'"],
    ["none", "No valid credentials provided"],
  ]);
  expect(JSON.stringify(failed)).not.toContain("not-a-key-at-all");
  expect(JSON.stringify(failed)).not.toContain("sk-live-wrong-format");
});

it("publishes every denial, and a success and a grant once per principal and permissions while they repeat", async () => {
  events.length = 0;
  for (let i = 0; i < 3; i++)
    expect((await request("GET", "/api/mcp_servers/", keys.bob)).statusCode).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await request("POST", "/api/config/reload", keys.bob)).statusCode).toBe(403);
  expect(ofType("AuthenticationSucceeded")).toEqual([
    expect.objectContaining({ principal_id: "bob", auth_method: "api_key", tenant_id: null }),
  ]);
  const granted = ofType("AuthorizationGranted").filter(
    (e) => (e as { resource: string }).resource === "GET /mcp_servers/",
  );
  expect(granted).toHaveLength(1);
  expect(granted[0]).toMatchObject({ principal_id: "bob", permissions: ["mcp_servers:read"] });
  const denied = ofType("AuthorizationDenied");
  expect(denied).toHaveLength(2);
  expect(denied[0]).toMatchObject({ principal_id: "bob", resource: "POST /config/reload" });
});

it("keeps them in the event store, in the gateway's stream", async () => {
  await gw.gateway.services.eventStore.flush();
  const stored = await gw.gateway.services.eventStore.readStream("gateway", {
    types: ["AuthenticationFailed", "AuthorizationDenied"],
    limit: 1000,
  });
  expect(stored.map((s) => s.event.type)).toEqual(
    expect.arrayContaining(["AuthenticationFailed", "AuthorizationDenied"]),
  );
});

it("records each call of a batch refused for want of tool:invoke as a denied invocation in the audit trail", async () => {
  const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client({ name: "access-events-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), {
      requestInit: { headers: { "x-api-key": keys.bob as string } },
    }),
  );
  try {
    const result = await client.callTool({
      name: "gateway_call",
      arguments: {
        calls: [
          { mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } },
          { mcp_server: "ghost", tool: "add", arguments: {} },
        ],
      },
    });
    expect(result.isError).toBe(true);
    const denied = async () =>
      (
        await gw.gateway.services.repositories.audit.query({ actor: "bob", action: "tool_invocation" })
      ).filter((r) => r.outcome === "denied");
    await waitFor(async () => (await denied()).length === 1);
    expect((await denied())[0]).toMatchObject({ target: "math", details: { "mcp.tool.name": "add" } });
  } finally {
    await client.close();
  }
});
