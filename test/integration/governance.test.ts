import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditRecord } from "../../src/app/ports/audit-trail.js";
import { createApiKey } from "../support/api-keys.js";
import {
  ARITHMETIC,
  CONTROLLABLE,
  startTestGateway,
  TEXT,
  type TestGateway,
  waitFor,
} from "../support/gateway.js";
import { callJson } from "../support/mcp-client.js";

/**
 * Governance on the egress topology, through real HTTP and an MCP SDK client: tenant policies,
 * policies stored through REST, runtime withdrawals, the payload_size validator, suspended
 * sessions, and the audit records of the refusals.
 */
const MAX_BYTES = 200;
const yaml = `
# Many calls in a row: the shared command-bus budget must not be what refuses them.
rate_limit: {rps: 1000, burst: 1000}
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: svc1, role: service-account}
    - {principal: svc2, role: service-account}
    - {principal: dave, role: developer, scope: "tenant:t1"}
    - {principal: erin, role: viewer}
interceptors:
  validators:
    - {type: payload_size, max_bytes: ${MAX_BYTES}}
tool_access:
  member:
    t1: {deny_list: [echo]}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  text:
    command: [node, ${JSON.stringify(TEXT)}]
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    env: {MEMBER: ctl}
    tool_access:
      member:
        t2: {allow_list: [env]}
  pool:
    mode: group
    auto_start: false
    members:
      - {id: text}
`;

let gw: TestGateway;
let base: string;
const keys: Record<string, string> = {};
const clients: Record<string, Client> = {};

const keyFor = (principal: string, tenant: string | null = null) => createApiKey(gw, principal, { tenant });

async function connectAs(key: string): Promise<Client> {
  const client = new Client({ name: "governance-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), {
      requestInit: { headers: { "x-api-key": key } },
    }),
  );
  return client;
}

const sessionOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId ?? "";

/** One upstream call through `gateway_call`; answers the call's result entry. */
async function call(who: string, target: string, tool: string, args: Record<string, unknown> = {}) {
  const client = clients[who];
  if (!client) throw new Error(`no client for ${who}`);
  const { json, text } = await callJson(client, "gateway_call", {
    calls: [{ mcp_server: target, tool, arguments: args }],
  });
  if (!json) throw new Error(text);
  return json.results[0] as { success: boolean; error_type: string | null; result: unknown };
}

const outcome = async (who: string, target: string, tool: string, args: Record<string, unknown> = {}) => {
  const result = await call(who, target, tool, args);
  return result.success ? "ok" : result.error_type;
};

const rest = (method: "GET" | "POST" | "DELETE", url: string, who = "alice", body?: unknown) =>
  gw.app.inject({
    method,
    url,
    headers: {
      "x-api-key": keys[who] ?? "",
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { payload: typeof body === "string" ? body : JSON.stringify(body) }),
  });

beforeAll(async () => {
  gw = await startTestGateway(yaml);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  keys.alice = await keyFor("alice", null);
  keys.svc1 = await keyFor("svc1", "t1");
  keys.svc2 = await keyFor("svc2", "t2");
  keys.dave = await keyFor("dave", "t1");
  keys.erin = await keyFor("erin", "t1");
  for (const who of ["alice", "svc1", "svc2"]) clients[who] = await connectAs(keys[who] as string);
}, 30_000);

afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await gw?.close();
});

describe("tool_access.member.<tenant>", () => {
  it("applies the global tenant policy on every server and group, for callers of that tenant only", async () => {
    expect(await outcome("svc1", "text", "echo", { text: "a" })).toBe("ToolAccessDeniedError");
    expect(await outcome("svc1", "pool", "echo", { text: "a" })).toBe("ToolAccessDeniedError");
    expect(await outcome("svc1", "text", "reverse", { text: "ab" })).toBe("ok");
    expect(await outcome("svc2", "text", "echo", { text: "a" })).toBe("ok");
    expect(await outcome("alice", "pool", "echo", { text: "a" })).toBe("ok");
  });

  it("applies a server's own tenant policy besides the server's policy, on that server only", async () => {
    expect(await outcome("svc2", "ctl", "echo", { message: "x" })).toBe("ToolAccessDeniedError");
    const env = await call("svc2", "ctl", "env", { name: "MEMBER" });
    expect(env).toMatchObject({ success: true, result: { content: [{ text: "ctl" }] } });
    expect(await outcome("svc2", "math", "add", { a: 1, b: 2 })).toBe("ok");
    expect(await outcome("svc1", "ctl", "echo", { message: "x" })).toBe("ToolAccessDeniedError");
    expect(await outcome("alice", "ctl", "echo", { message: "x" })).toBe("ok");
  });
});

describe("policies stored through /auth/policies", () => {
  it("take effect on the next call and stop when deleted (provider scope)", async () => {
    expect(await outcome("svc2", "math", "subtract", { a: 3, b: 1 })).toBe("ok");
    const set = await rest("POST", "/api/auth/policies/provider/math", "alice", { deny_list: ["subtract"] });
    expect(set.statusCode).toBe(200);
    expect(await outcome("svc2", "math", "subtract", { a: 3, b: 1 })).toBe("ToolAccessDeniedError");
    expect(await outcome("svc2", "math", "add", { a: 3, b: 1 })).toBe("ok");
    expect((await rest("DELETE", "/api/auth/policies/provider/math")).statusCode).toBe(204);
    expect(await outcome("svc2", "math", "subtract", { a: 3, b: 1 })).toBe("ok");
  });

  it("govern calls through a group (group scope) and a member reached through it (member scope)", async () => {
    await rest("POST", "/api/auth/policies/group/pool", "alice", { deny_list: ["uppercase"] });
    await rest("POST", "/api/auth/policies/member/pool:text", "alice", { allow_list: ["echo", "uppercase"] });
    try {
      expect(await outcome("svc2", "pool", "uppercase", { text: "a" })).toBe("ToolAccessDeniedError");
      expect(await outcome("svc2", "pool", "lowercase", { text: "A" })).toBe("ToolAccessDeniedError");
      expect(await outcome("svc2", "pool", "echo", { text: "a" })).toBe("ok");
      // Called directly, the server is no group member: neither policy applies.
      expect(await outcome("svc2", "text", "uppercase", { text: "a" })).toBe("ok");
      expect(await outcome("svc2", "text", "lowercase", { text: "A" })).toBe("ok");
    } finally {
      await rest("DELETE", "/api/auth/policies/group/pool");
      await rest("DELETE", "/api/auth/policies/member/pool:text");
    }
    expect(await outcome("svc2", "pool", "uppercase", { text: "a" })).toBe("ok");
  });
});

describe("operator listings with access filtering (spec 2 §4)", () => {
  const names = (tools: { name?: string; tool_name?: string }[]) =>
    tools.map((tool) => tool.name ?? tool.tool_name ?? "");
  const viaMcp = async (): Promise<string[]> => {
    const { json } = await callJson(clients.alice as Client, "gateway_tools", { mcp_server: "math" });
    return names(json?.tools ?? []);
  };
  const serverTools = async (who: string) => {
    const response = await rest("GET", "/api/mcp_servers/math/tools", who);
    expect(response.statusCode).toBe(200);
    return names(response.json().tools);
  };
  const allTools = async (who: string) =>
    names(
      (
        (await rest("GET", "/api/tools/", who)).json().tools as { mcp_server_id: string; tool_name: string }[]
      ).filter((tool) => tool.mcp_server_id === "math"),
    );
  const details = async (who: string) =>
    names((await rest("GET", "/api/mcp_servers/math", who)).json().tools);

  it("leave out a tool a stored policy denies, or a withdrawal hides, from the caller it applies to", async () => {
    expect(await viaMcp()).toContain("subtract");
    await rest("POST", "/api/auth/policies/provider/math", "alice", { deny_list: ["subtract"] });
    await rest("POST", "/api/admin/tools/math/multiply/withdraw", "alice", { tenant_id: "t1" });
    try {
      for (const list of [
        await viaMcp(),
        await serverTools("alice"),
        await allTools("alice"),
        await details("alice"),
      ]) {
        expect(list).not.toContain("subtract");
        expect(list).toContain("add");
        // The withdrawal is tenant t1's alone.
        expect(list).toContain("multiply");
      }
      // A reader whose key belongs to tenant t1.
      for (const list of [await serverTools("erin"), await allTools("erin"), await details("erin")]) {
        expect(list).not.toContain("subtract");
        expect(list).not.toContain("multiply");
      }
    } finally {
      await rest("DELETE", "/api/auth/policies/provider/math");
      await rest("POST", "/api/admin/tools/math/multiply/restore", "alice", { tenant_id: "t1" });
    }
    expect(await serverTools("erin")).toEqual(expect.arrayContaining(["subtract", "multiply"]));
  });
});

describe("runtime withdrawals", () => {
  const withdraw = (tool: string, body: unknown = {}, who = "alice") =>
    rest("POST", `/api/admin/tools/math/${tool}/withdraw`, who, body);
  const restore = (tool: string, body: unknown = {}, who = "alice") =>
    rest("POST", `/api/admin/tools/math/${tool}/restore`, who, body);

  it("withdraws a tool for one tenant and restores it", async () => {
    const response = await withdraw("multiply", { tenant_id: "t1" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      withdrawn: true,
      mcp_server: "math",
      tool: "multiply",
      tenant_id: "t1",
    });
    expect(await outcome("svc1", "math", "multiply", { a: 2, b: 3 })).toBe("ToolWithdrawnError");
    expect(await outcome("svc2", "math", "multiply", { a: 2, b: 3 })).toBe("ok");
    expect((await restore("multiply", { tenant_id: "t1" })).json()).toEqual({
      restored: true,
      mcp_server: "math",
      tool: "multiply",
      tenant_id: "t1",
    });
    expect(await outcome("svc1", "math", "multiply", { a: 2, b: 3 })).toBe("ok");
  });

  it("withdraws a tool for every tenant; restoring one tenant leaves it withdrawn, restoring all lifts it", async () => {
    expect((await withdraw("divide")).json()).toMatchObject({ withdrawn: true, tenant_id: null });
    for (const who of ["alice", "svc1", "svc2"])
      expect(await outcome(who, "math", "divide", { a: 6, b: 3 })).toBe("ToolWithdrawnError");
    expect((await restore("divide", { tenant_id: "t2" })).json()).toMatchObject({ restored: false });
    expect(await outcome("svc2", "math", "divide", { a: 6, b: 3 })).toBe("ToolWithdrawnError");
    expect((await restore("divide", { tenant_id: null })).json()).toMatchObject({ restored: true });
    expect(await outcome("svc2", "math", "divide", { a: 6, b: 3 })).toBe("ok");
  });

  it("confines a tenant-scoped operator to its own tenant", async () => {
    const own = await withdraw("sum", {}, "dave");
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ tenant_id: "t1" });
    expect(await outcome("svc1", "math", "sum", { numbers: [1, 2] })).toBe("ToolWithdrawnError");
    expect(await outcome("svc2", "math", "sum", { numbers: [1, 2] })).toBe("ok");
    const other = await withdraw("sum", { tenant_id: "t2" }, "dave");
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe("AccessDeniedError");
    // An explicit null asks for every tenant: refused too, not narrowed to the caller's own.
    const every = await withdraw("sum", { tenant_id: null }, "dave");
    expect(every.statusCode).toBe(403);
    expect(every.json().error.code).toBe("AccessDeniedError");
    expect(await outcome("svc2", "math", "sum", { numbers: [1, 2] })).toBe("ok");
    expect((await restore("sum", {}, "dave")).json()).toMatchObject({ restored: true, tenant_id: "t1" });
  });

  it("refuses bad input naming the field and rule, and withdraws nothing", async () => {
    const badTenant = await withdraw("add", { tenant_id: 5 });
    expect(badTenant.statusCode).toBe(422);
    expect(badTenant.json().error.message).toMatch(/^Invalid field 'tenant_id': must be a non-empty string/);
    const malformed = await withdraw("add", "{not json");
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe("invalid_body");
    const unknown = await rest("POST", "/api/admin/tools/nowhere/add/withdraw", "alice", {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("McpServerNotFoundError");
    expect(await outcome("svc1", "math", "add", { a: 1, b: 1 })).toBe("ok");
    expect(gw.gateway.services.governance?.withdrawals.empty).toBe(true);
  });
});

describe("the payload_size validator", () => {
  /** Arguments whose JSON encoding is exactly `bytes` long. */
  const payloadOf = (bytes: number) => {
    const overhead = JSON.stringify({ text: "" }).length;
    return { text: "x".repeat(bytes - overhead) };
  };

  it("passes a payload at the limit and refuses one byte over it before the server sees it", async () => {
    expect(JSON.stringify(payloadOf(MAX_BYTES)).length).toBe(MAX_BYTES);
    expect(await outcome("alice", "text", "echo", payloadOf(MAX_BYTES))).toBe("ok");
    const over = await call("alice", "text", "echo", payloadOf(MAX_BYTES + 1));
    expect(over).toMatchObject({ success: false, error_type: "ValidatorDenied" });
  });
});

describe("suspended sessions", () => {
  it("refuses the calls of a suspended session, leaves other sessions alone, and lets it call again once resumed", async () => {
    const session = sessionOf(clients.alice as Client);
    const other = await connectAs(keys.alice as string);
    try {
      const suspended = await rest("POST", `/api/sessions/${session}/suspend`, "alice", {
        reason: "incident",
      });
      expect(suspended.statusCode).toBe(200);
      expect(suspended.json()).toEqual({ session_id: session, suspended: true });
      expect(await outcome("alice", "math", "add", { a: 1, b: 1 })).toBe("SessionSuspendedError");
      const { json } = await callJson(other, "gateway_call", {
        calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } }],
      });
      expect(json.results[0].success).toBe(true);
      const resumed = await rest("DELETE", `/api/sessions/${session}/suspend`);
      expect(resumed.json()).toEqual({ session_id: session, suspended: false });
      expect(await outcome("alice", "math", "add", { a: 1, b: 1 })).toBe("ok");
    } finally {
      await other.close();
    }
  });

  it("answers 400 for an invalid session id and suspends nothing; accepts one of 128 characters", async () => {
    for (const id of ["x".repeat(129), "bad.id", "b%C3%A4d"]) {
      const response = await rest("POST", `/api/sessions/${id}/suspend`);
      expect([id, response.statusCode, response.json().error]).toEqual([id, 400, "invalid_session_id"]);
    }
    expect(await gw.gateway.services.repositories.suspendedSessions.list()).toEqual([]);
    const longest = "s".repeat(128);
    expect((await rest("POST", `/api/sessions/${longest}/suspend`)).statusCode).toBe(200);
    expect((await rest("DELETE", `/api/sessions/${longest}/suspend`)).statusCode).toBe(200);
    expect(await gw.gateway.services.repositories.suspendedSessions.list()).toEqual([]);
  });

  it("reads a null reason as none, and refuses a reason that is not a string", async () => {
    const nullReason = await rest("POST", "/api/sessions/s-null/suspend", undefined, { reason: null });
    expect(nullReason.statusCode).toBe(200);
    expect(await gw.gateway.services.repositories.suspendedSessions.list()).toMatchObject([
      { session_id: "s-null", reason: "" },
    ]);
    expect((await rest("DELETE", "/api/sessions/s-null/suspend")).statusCode).toBe(200);
    const numeric = await rest("POST", "/api/sessions/s-num/suspend", undefined, { reason: 5 });
    expect(numeric.statusCode).toBe(422);
    expect(numeric.json().error.message).toContain("reason");
    expect(await gw.gateway.services.repositories.suspendedSessions.list()).toEqual([]);
  });
});

describe("POST /agent/policy", () => {
  it("is refused with authentication on: the route table does not list it", async () => {
    const response = await rest("POST", "/api/agent/policy", "alice", { tool_policies: [] });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe("AccessDeniedError");
  });
});

describe("audit records of refusals", () => {
  it("read mcp.tool.status=denied for policy, withdrawal, validator and suspension refusals", async () => {
    const { audit } = gw.gateway.services.repositories;
    const deniedTypes = async () =>
      new Set(
        (await audit.query({ action: "tool_invocation", limit: 10_000 }))
          .filter((record: AuditRecord) => record.details["mcp.tool.status"] === "denied")
          .map((record) => record.details.error_type),
      );
    const expected = [
      "ToolAccessDeniedError",
      "ToolWithdrawnError",
      "ValidatorDenied",
      "SessionSuspendedError",
    ];
    await waitFor(async () => {
      const types = await deniedTypes();
      return expected.every((type) => types.has(type));
    });
    const withdrawn = (await audit.query({ action: "tool_invocation", tenant_id: "t1", limit: 10_000 })).find(
      (record) => record.details.error_type === "ToolWithdrawnError",
    );
    expect(withdrawn).toMatchObject({ actor: "svc1", outcome: "denied", target: "math" });
  });
});
