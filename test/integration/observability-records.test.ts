import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, startTestGateway, TEXT, type TestGateway, waitFor } from "../support/gateway.js";

/**
 * `GET /api/observability/audit` and `/observability/security` over a gateway with authentication
 * on and real example servers: calls made through `gateway_call` show in the audit trail, refusals
 * in the security view, each read confined to the caller's tenant when its grant is.
 */
let gw: TestGateway;
let base: string;
const keys: Record<string, string> = {};
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: dev, role: developer}
    - {principal: dev2, role: developer}
    - {principal: audra, role: auditor}
    - {principal: tina, role: auditor, scope: "tenant:t1"}
    - {principal: vic, role: viewer}
    - {principal: root, role: admin}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    tools: {deny_list: [multiply]}
  text:
    command: [node, ${JSON.stringify(TEXT)}]
`);
  keys.dev = await createApiKey(gw, "dev", { tenant: "t1" });
  keys.dev2 = await createApiKey(gw, "dev2");
  keys.audra = await createApiKey(gw, "audra");
  keys.tina = await createApiKey(gw, "tina", { tenant: "t1" });
  keys.vic = await createApiKey(gw, "vic");
  keys.root = await createApiKey(gw, "root");
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gw?.close();
});

async function mcpAs(key: string): Promise<Client> {
  const client = new Client({ name: "observability-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), {
      requestInit: { headers: { "x-api-key": key } },
    }),
  );
  clients.push(client);
  return client;
}

async function call(key: string, calls: { mcp_server: string; tool: string; arguments: object }[]) {
  return (await mcpAs(key)).callTool({ name: "gateway_call", arguments: { calls } });
}

const get = (url: string, key: string) =>
  gw.app.inject({ method: "GET", url, headers: { "x-api-key": key } });

interface Record_ {
  id: string;
  actor: string;
  target: string;
  outcome: string;
  tenant_id: string | null;
  occurred_at: number;
  details: Record<string, unknown>;
}

const audit = async (query: string, key = keys.audra as string) => {
  const res = await get(`/api/observability/audit${query}`, key);
  expect(res.statusCode).toBe(200);
  return res.json() as { records: Record_[]; count: number; next_cursor: string | null };
};
const tools = (records: Record_[]) =>
  records.map((r) => `${r.actor}:${r.target}.${r.details["mcp.tool.name"]}`);

describe("the audit trail route", () => {
  let between = 0;

  beforeAll(async () => {
    await call(keys.dev as string, [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } }]);
    await waitFor(async () => (await gw.gateway.services.repositories.audit.query()).length === 1);
    between = Date.now() / 1000;
    await call(keys.dev as string, [
      { mcp_server: "text", tool: "uppercase", arguments: { text: "hi" } },
      { mcp_server: "math", tool: "multiply", arguments: { a: 2, b: 3 } },
    ]);
    await call(keys.dev2 as string, [{ mcp_server: "math", tool: "add", arguments: { a: 5, b: 5 } }]);
    await waitFor(async () => (await gw.gateway.services.repositories.audit.query()).length === 4);
  });

  it("lists the calls made through real servers, newest first, with who called and the outcome", async () => {
    const page = await audit("");
    expect(page.count).toBe(4);
    expect(tools(page.records)[0]).toBe("dev2:math.add");
    expect(tools(page.records).at(-1)).toBe("dev:math.add");
    expect(page.records.map((r) => r.occurred_at)).toEqual(
      [...page.records.map((r) => r.occurred_at)].sort((a, b) => b - a),
    );
    const denied = page.records.find((r) => r.details["mcp.tool.name"] === "multiply");
    expect(denied).toMatchObject({
      outcome: "denied",
      tenant_id: "t1",
      details: { error_type: "ToolAccessDeniedError" },
    });
    expect(page.next_cursor).toBeNull();
  });

  it("filters by server, tool, principal, outcome and time, combined", async () => {
    expect(tools((await audit("?mcp_server_id=math")).records).sort()).toEqual(
      ["dev2:math.add", "dev:math.add", "dev:math.multiply"].sort(),
    );
    expect(tools((await audit("?tool_name=add")).records)).toEqual(["dev2:math.add", "dev:math.add"]);
    expect(tools((await audit("?principal_id=dev2")).records)).toEqual(["dev2:math.add"]);
    expect(tools((await audit("?outcome=denied")).records)).toEqual(["dev:math.multiply"]);
    expect((await audit(`?since=${between}`)).count).toBe(3);
    const iso = new Date(between * 1000).toISOString();
    expect((await audit(`?since=${iso}&tool_name=add`)).records.map((r) => r.actor)).toEqual(["dev2"]);
    expect((await audit(`?until=${between}`)).count).toBe(1);
    expect((await audit("?mcp_server_id=ghost")).count).toBe(0);
  });

  it("pages with limit and next_cursor, neither repeating nor skipping a record", async () => {
    const all = (await audit("")).records.map((r) => r.id);
    const first = await audit("?limit=3");
    expect(first.records.map((r) => r.id)).toEqual(all.slice(0, 3));
    expect(first.next_cursor).toBe(all[2]);
    const second = await audit(`?limit=3&cursor=${first.next_cursor}`);
    expect(second.records.map((r) => r.id)).toEqual(all.slice(3));
    expect(second.next_cursor).toBeNull();
  });

  it("confines a tenant-scoped auditor to its tenant's records", async () => {
    const page = await audit("", keys.tina);
    expect(page.count).toBe(3);
    expect(new Set(page.records.map((r) => r.tenant_id))).toEqual(new Set(["t1"]));
  });

  it("refuses a read-only key (403) and bad filters (422 naming the field, 400 for a non-integer limit)", async () => {
    const refused = await get("/api/observability/audit", keys.vic as string);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe("AccessDeniedError");
    const outcome = await get("/api/observability/audit?outcome=maybe", keys.audra as string);
    expect(outcome.statusCode).toBe(422);
    expect(outcome.json().error.message).toBe(
      "Invalid field 'outcome': must be one of success, failure, denied",
    );
    const since = await get("/api/observability/audit?since=yesterday", keys.audra as string);
    expect(since.statusCode).toBe(422);
    expect(since.json().error.message).toMatch(/^Invalid field 'since': must be epoch seconds/);
    const limit = await get("/api/observability/audit?limit=ten", keys.audra as string);
    expect([limit.statusCode, limit.json()]).toEqual([
      400,
      { error: "invalid_query", detail: "limit must be an integer" },
    ]);
  });
});

interface SecurityEvent {
  event_type: string;
  category: string;
  position: number;
  occurred_at: number;
  [field: string]: unknown;
}

const security = async (query: string, key = keys.audra as string) => {
  const res = await get(`/api/observability/security${query}`, key);
  expect(res.statusCode).toBe(200);
  return res.json() as { events: SecurityEvent[]; count: number; next_before: number | null };
};

describe("the security route", () => {
  let start = 0;

  beforeAll(async () => {
    start = Date.now() / 1000;
    // A read-only key asking for a call: refused for want of tool:invoke.
    const refused = await call(keys.vic as string, [
      { mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } },
    ]);
    expect(refused.isError).toBe(true);
    // A call the server's tool policy denies, and one that succeeds (not a security event).
    await call(keys.dev2 as string, [
      { mcp_server: "math", tool: "multiply", arguments: { a: 1, b: 1 } },
      { mcp_server: "math", tool: "subtract", arguments: { a: 3, b: 1 } },
    ]);
    // An API key created and revoked through /auth.
    const created = await gw.app.inject({
      method: "POST",
      url: "/api/auth/keys",
      headers: { "x-api-key": keys.root as string },
      payload: { principal_id: "svc", name: "ci" },
    });
    expect(created.statusCode).toBe(201);
    const revoked = await gw.app.inject({
      method: "DELETE",
      url: `/api/auth/keys/${created.json().key_id}`,
      headers: { "x-api-key": keys.root as string },
      payload: { reason: "rotated" },
    });
    expect(revoked.statusCode).toBe(200);
  });

  it("lists a denied call and the authorization refusal, newest first, with their categories", async () => {
    const { events } = await security(`?since=${start}`);
    expect(events.map((e) => e.position)).toEqual([...events.map((e) => e.position)].sort((a, b) => b - a));
    const byType = (type: string) => events.filter((e) => e.event_type === type);
    expect(byType("AuthorizationDenied").some((e) => e.principal_id === "vic")).toBe(true);
    expect(byType("AuthorizationDenied")[0]?.category).toBe("authorization");
    const refusals = byType("ToolInvocationFailed");
    expect(refusals.map((e) => [e.requested_by, e.tool_name, e.error_type, e.category])).toEqual(
      expect.arrayContaining([
        ["dev2", "multiply", "ToolAccessDeniedError", "tool_access"],
        ["vic", "add", expect.any(String), "authorization"],
      ]),
    );
    expect(events.some((e) => e.event_type === "ToolInvocationCompleted")).toBe(false);
    expect(events.find((e) => e.tool_name === "subtract")).toBeUndefined();
  });

  it("lists API key creation and revocation, never the key itself", async () => {
    const { events } = await security(`?since=${start}`);
    const keysEvents = events.filter((e) => e.category === "api_key");
    expect(keysEvents.map((e) => [e.event_type, e.principal_id])).toEqual([
      ["ApiKeyRevoked", "svc"],
      ["ApiKeyCreated", "svc"],
    ]);
    expect(keysEvents[0]).toMatchObject({ revoked_by: "root", reason: "rotated" });
    expect(JSON.stringify(keysEvents)).not.toMatch(/mcp_[A-Za-z0-9_-]{20,}/);
  });

  it("pages with limit and next_before, and keeps to the window", async () => {
    const all = (await security(`?since=${start}`)).events.map((e) => e.position);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const first = await security(`?since=${start}&limit=2`);
    expect(first.events.map((e) => e.position)).toEqual(all.slice(0, 2));
    expect(first.next_before).toBe(all[1]);
    const rest = await security(`?since=${start}&limit=1000&before=${first.next_before}`);
    expect(rest.events.map((e) => e.position)).toEqual(all.slice(2));
    expect(rest.next_before).toBeNull();
    expect((await security(`?since=${Date.now() / 1000 + 60}`)).count).toBe(0);
  });

  it("confines a tenant-scoped auditor to events of its tenant", async () => {
    await call(keys.dev as string, [{ mcp_server: "math", tool: "multiply", arguments: { a: 1, b: 2 } }]);
    const { events } = await security(`?since=${start}`, keys.tina);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.tenant_id === "t1")).toBe(true);
  });

  it("refuses a read-only key (403)", async () => {
    const res = await get("/api/observability/security", keys.vic as string);
    expect(res.statusCode).toBe(403);
  });
});
