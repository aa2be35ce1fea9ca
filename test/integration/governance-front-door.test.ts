import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import type { ToolResult } from "../support/mcp-client.js";

/**
 * Governance on the front door, through real HTTP and MCP SDK clients of two tenants: listings
 * filtered per caller, hidden tools answering -32601, prompt and resource `access:`, runtime
 * withdrawals and stored policies.
 */
const RICH = resolve("test/fixtures/servers/rich.mjs");

const yaml = `
rate_limit: {rps: 1000, burst: 1000}
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: svc1, role: service-account}
    - {principal: svc2, role: service-account}
tool_access:
  mode: front_door
  member:
    t1:
      deny_list: [shout]
      access:
        prompt: {deny_list: [twin-*]}
mcp_servers:
  rich:
    command: [node, ${JSON.stringify(RICH)}]
    access:
      resource: {deny_list: ["rich://hidden/*"]}
  twin:
    command: [node, ${JSON.stringify(RICH)}]
    env: {RICH_PREFIX: twin}
    tool_access:
      member:
        t2:
          access:
            resource: {allow_list: ["twin://items/*"]}
  pool:
    mode: group
    members:
      - id: ctl-a
        command: [node, ${JSON.stringify(CONTROLLABLE)}]
      - id: ctl-b
        command: [node, ${JSON.stringify(CONTROLLABLE)}]
`;

let gw: TestGateway;
let base: string;
const keys: Record<string, string> = {};
const clients: Record<string, Client> = {};

const keyFor = (principal: string, tenant: string | null = null) => createApiKey(gw, principal, { tenant });

function client(who: string): Client {
  const found = clients[who];
  if (!found) throw new Error(`no client for ${who}`);
  return found;
}

const toolNames = async (who: string) => (await client(who).listTools()).tools.map((tool) => tool.name);

/** The text of a tool result, or the JSON-RPC error code the call ended with. */
async function callOutcome(who: string, name: string, args: Record<string, unknown> = {}) {
  try {
    const result = (await client(who).callTool({ name, arguments: args })) as ToolResult;
    return result.isError ? `isError: ${result.content[0]?.text}` : result.content[0]?.text;
  } catch (error) {
    if (error instanceof McpError) return error.code;
    throw error;
  }
}

const rest = (method: "POST" | "DELETE", url: string, body?: unknown) =>
  gw.app.inject({
    method,
    url,
    headers: {
      "x-api-key": keys.alice ?? "",
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });

beforeAll(async () => {
  gw = await startTestGateway(yaml);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  gw.gateway.startBackground();
  keys.alice = await keyFor("alice", null);
  keys.svc1 = await keyFor("svc1", "t1");
  keys.svc2 = await keyFor("svc2", "t2");
  for (const who of ["alice", "svc1", "svc2"]) {
    const c = new Client({ name: `governance-${who}`, version: "1.0.0" });
    await c.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": keys[who] as string } },
      }),
    );
    clients[who] = c;
  }
  await waitFor(async () => {
    const names = await toolNames("alice");
    return ["shout", "echo", "count"].every((name) => names.includes(name));
  }, 20_000);
}, 40_000);

afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await gw?.close();
});

describe("front door: tenant policies", () => {
  it("publishes the refusal of a management tool it hides from the caller, answered -32601", async () => {
    const seen: Record<string, unknown>[] = [];
    const stop = gw.gateway.services.bus.subscribe((event) => {
      if (event.type === "AuthorizationDenied") seen.push(event as unknown as Record<string, unknown>);
    });
    try {
      expect(await callOutcome("svc1", "gateway_start", { mcp_server: "rich" })).toBe(-32601);
      expect(seen).toContainEqual(
        expect.objectContaining({
          principal_id: "svc1",
          resource: "mcp:gateway_start",
          permissions: ["mcp_servers:lifecycle"],
        }),
      );
    } finally {
      stop();
    }
  });

  it("lists a tool a tenant policy denies to nobody of that tenant, and answers -32601 when they call it", async () => {
    expect(await toolNames("svc1")).not.toContain("shout");
    expect(await toolNames("svc2")).toContain("shout");
    expect(await toolNames("alice")).toContain("shout");
    expect(await callOutcome("svc1", "shout", { message: "hi" })).toBe(-32601);
    expect(await callOutcome("svc2", "shout", { message: "hi" })).toBe("HI");
  });
});

describe("front door: access for prompts and resources", () => {
  it("leaves a denied resource out of the listing and refuses it like a nonexistent one, link or not", async () => {
    const uris = (await client("alice").listResources()).resources.map((r) => r.uri);
    expect(uris).toContain("rich://readme");
    expect(uris).not.toContain("rich://hidden/1");
    expect(uris).toContain("twin://hidden/1");
    const read = await client("alice")
      .readResource({ uri: "rich://hidden/1" })
      .catch((e: unknown) => e);
    expect((read as McpError).code).toBe(-32002);
    // A tool result may name it in a resource link: reading it is refused all the same.
    const linked = (await client("alice").callTool({ name: "link", arguments: {} })) as {
      content: { uri?: string }[];
    };
    expect(linked.content[0]?.uri).toBe("rich://hidden/1");
    const viaLink = await client("alice")
      .readResource({ uri: "rich://hidden/1" })
      .catch((e: unknown) => e);
    expect((viaLink as McpError).code).toBe(-32002);
  });

  it("applies a tenant's access block to prompts: absent from the listing, refused on get", async () => {
    expect((await client("svc1").listPrompts()).prompts.map((p) => p.name)).not.toContain("twin-greet");
    expect((await client("svc2").listPrompts()).prompts.map((p) => p.name)).toContain("twin-greet");
    const refused = await client("svc1")
      .getPrompt({ name: "twin-greet", arguments: { name: "Bob" } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toContain("Prompt not found: twin-greet");
    const served = await client("svc2").getPrompt({ name: "twin-greet", arguments: { name: "Bob" } });
    expect(served.messages[0]?.content).toMatchObject({ text: "Hello Bob" });
  });

  it("applies a server's own tenant access block to that server's resources only", async () => {
    const listing = await client("svc2").listResources();
    const uris = listing.resources.map((r) => r.uri);
    expect(uris).not.toContain("twin://readme");
    expect(uris).toContain("rich://readme");
    const templates = (await client("svc2").listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates).toContain("twin://items/{id}");
    expect((await client("svc2").readResource({ uri: "twin://items/7" })).contents[0]).toMatchObject({
      text: "item 7",
    });
    const refused = await client("svc2")
      .readResource({ uri: "twin://readme" })
      .catch((e: unknown) => e);
    expect((refused as McpError).code).toBe(-32002);
    expect((await client("svc1").readResource({ uri: "twin://readme" })).contents[0]).toMatchObject({
      text: "readme of twin",
    });
  });
});

describe("front door: withdrawals and stored policies", () => {
  it("hides a tool withdrawn for one tenant from that tenant only, and shows it again once restored", async () => {
    const withdrawn = await rest("POST", "/api/admin/tools/rich/count/withdraw", { tenant_id: "t2" });
    expect(withdrawn.statusCode).toBe(200);
    expect(await toolNames("svc2")).not.toContain("count");
    expect(await toolNames("svc1")).toContain("count");
    expect(await callOutcome("svc2", "count", { steps: 1 })).toBe(-32601);
    expect(await callOutcome("svc1", "count", { steps: 1 })).toBe("counted 1");
    expect((await rest("POST", "/api/admin/tools/rich/count/restore", { tenant_id: "t2" })).statusCode).toBe(
      200,
    );
    expect(await toolNames("svc2")).toContain("count");
    expect(await callOutcome("svc2", "count", { steps: 1 })).toBe("counted 1");
  });

  it("tells connected sessions to list again when a runtime policy changes", async () => {
    let changed = 0;
    client("svc1").setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
    });
    await rest("POST", "/api/admin/tools/rich/shout/withdraw", { tenant_id: "t2" });
    await waitFor(() => changed > 0);
    await rest("POST", "/api/admin/tools/rich/shout/restore", { tenant_id: "t2" });
    await waitFor(() => changed > 1);
  });

  it("hides a group's tool withdrawn for everyone", async () => {
    await rest("POST", "/api/admin/tools/pool/echo/withdraw");
    try {
      for (const who of ["alice", "svc1", "svc2"]) expect(await toolNames(who)).not.toContain("echo");
      expect(await callOutcome("alice", "echo", { message: "x" })).toBe(-32601);
    } finally {
      await rest("POST", "/api/admin/tools/pool/echo/restore");
    }
    expect(await callOutcome("alice", "echo", { message: "x" })).toBe("x");
  });

  it("applies a stored policy to listings and calls at once, and lifts it when deleted", async () => {
    expect((await rest("POST", "/api/auth/policies/group/pool", { deny_list: ["env"] })).statusCode).toBe(
      200,
    );
    try {
      expect(await toolNames("svc2")).not.toContain("env");
      expect(await callOutcome("svc2", "env", { name: "PATH" })).toBe(-32601);
    } finally {
      await rest("DELETE", "/api/auth/policies/group/pool");
    }
    expect(await toolNames("svc2")).toContain("env");
  });

  it("records the refusals as denied invocations", async () => {
    const { audit } = gw.gateway.services.repositories;
    await waitFor(async () => {
      const records = await audit.query({ action: "tool_invocation", limit: 10_000 });
      const denied = records.filter((r) => r.details["mcp.tool.status"] === "denied");
      return (
        denied.some((r) => r.details.error_type === "ToolWithdrawnError" && r.tenant_id === "t2") &&
        denied.some((r) => r.details.error_type === "ToolAccessDeniedError" && r.tenant_id === "t1")
      );
    });
  });
});
