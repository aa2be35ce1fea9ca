import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import type { DomainEvent } from "../../src/domain/events.js";
import { fleetYaml, startTestGateway, TEXT, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/** AWS's documented example access key id: fake, and shaped like a real one. */
const FAKE_KEY = `AKIA${"IOSFODNN7EXAMPLE"}`;

interface CallResult {
  success: boolean;
  error: string | null;
  error_type: string | null;
  result: { content: { text: string }[] } | null;
}

let gw: TestGateway;
let baseUrl: string;
let client: Client;
const events: DomainEvent[] = [];

/** A parsed JSON body, read as the test expects it. */
type Json = ReturnType<typeof JSON.parse>;

/** A REST request over real HTTP; the JSON body and the status. */
async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const response = await fetch(new URL(`/api${path}`, baseUrl), {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

/** One call through `gateway_call`, as an MCP client makes it. */
async function call(mcp_server: string, tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const { json } = await callJson(client, "gateway_call", { calls: [{ mcp_server, tool, arguments: args }] });
  return json.results[0];
}

const egressEvents = () =>
  events.filter(
    (e): e is Extract<DomainEvent, { type: "EgressPolicyEnforced" }> => e.type === "EgressPolicyEnforced",
  );

beforeAll(async () => {
  gw = await startTestGateway(
    fleetYaml(`
  pair:
    mode: group
    auto_start: false
    members:
      - {id: text}
`),
  );
  gw.gateway.services.bus.subscribe((event) => events.push(event));
  baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  client = await connectHttp(baseUrl);
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("the l7_policy routes", () => {
  it("answer 404 no_l7_policy for a server without a policy, and McpServerNotFoundError for an unknown one", async () => {
    const none = await rest("GET", "/mcp_servers/math/l7_policy");
    expect(none.status).toBe(404);
    expect(none.json).toMatchObject({ error: "no_l7_policy", mcp_server_id: "math" });
    expect(await rest("DELETE", "/mcp_servers/math/l7_policy")).toMatchObject({
      status: 404,
      json: { error: "no_l7_policy", mcp_server_id: "math" },
    });
    const unknown = await rest("GET", "/mcp_servers/nowhere/l7_policy");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("McpServerNotFoundError");
    expect((await rest("PUT", "/mcp_servers/nowhere/l7_policy", {})).status).toBe(404);
  });

  it("refuse an invalid policy naming the field and the unknown pattern group, and change nothing", async () => {
    const refused = await rest("POST", "/mcp_servers/text/l7_policy", {
      tools: { allow: ["*"] },
      arguments: { secretPatterns: ["aws-keys", "github-token"] },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe("ValidationError");
    expect(refused.json.error.message).toContain("arguments.secretPatterns[1]");
    expect(refused.json.error.message).toContain("'github-token'");
    expect(refused.json.error.details.issues).toHaveLength(1);
    const bodyNotObject = await rest("POST", "/mcp_servers/text/l7_policy", ["tools"]);
    expect(bodyNotObject).toMatchObject({ status: 400, json: { error: "invalid_body" } });
    expect((await rest("GET", "/mcp_servers/text/l7_policy")).status).toBe(404);
  });
});

describe("an L7 egress policy attached through REST", () => {
  const enforce = {
    tools: { allow: ["*"], deny: ["reverse"] },
    arguments: { secretPatterns: ["aws-keys"] },
  };
  let enforcedId: string;

  it("is attached by POST and read back compiled, every section filled in, with its policyId", async () => {
    const attached = await rest("POST", "/mcp_servers/text/l7_policy", enforce);
    expect(attached.status).toBe(200);
    expect(attached.json).toMatchObject({ mcp_server_id: "text", attached: true, replaced: false });
    const read = await rest("GET", "/mcp_servers/text/l7_policy");
    expect(read.status).toBe(200);
    enforcedId = read.json.policyId;
    expect(enforcedId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(read.json).toEqual({
      policyId: enforcedId,
      tools: { allow: ["*"], deny: ["reverse"], requireApproval: [] },
      headers: { allow: [], deny: [], requireApproval: [] },
      arguments: { secretPatterns: ["aws-keys"], maxPayloadBytes: null },
      defaultAction: "Deny",
      mode: "Enforce",
    });
    expect(attached.json.policy).toEqual(read.json);
  });

  it("in Enforce refuses a call carrying a secret and a denied tool with EgressPolicyDeniedError", async () => {
    events.length = 0;
    const leak = await call("text", "echo", { text: `here is my key ${FAKE_KEY}` });
    expect(leak).toMatchObject({ success: false, error_type: "EgressPolicyDeniedError" });
    expect(leak.error).toContain("'aws-keys'");
    expect(JSON.stringify(leak)).not.toContain(FAKE_KEY);
    const denied = await call("text", "reverse", { text: "abc" });
    expect(denied).toMatchObject({ success: false, error_type: "EgressPolicyDeniedError" });
    expect(denied.error).toContain("tools.deny 'reverse'");

    const allowed = await call("text", "echo", { text: "nothing secret" });
    expect(allowed.success).toBe(true);
    expect(allowed.result?.content[0]?.text).toBe("nothing secret");
    // A server without a policy is not evaluated.
    expect((await call("math", "add", { a: 1, b: 2 })).success).toBe(true);

    expect(egressEvents().map((e) => [e.tool_name, e.verdict, e.enforced, e.decided_by])).toEqual([
      ["echo", "deny", true, "arguments.secretPatterns:aws-keys"],
      ["reverse", "deny", true, "tools.deny:reverse"],
      ["echo", "allow", true, "tools.allow:*"],
    ]);
    expect(egressEvents().every((e) => e.policy_id === enforcedId && e.mcp_server_id === "text")).toBe(true);
    expect(JSON.stringify(events)).not.toContain(FAKE_KEY);
  });

  it("records a refused call as a denied invocation in the audit trail", async () => {
    const { repositories } = gw.gateway.services;
    await waitFor(async () => {
      const records = await repositories.audit.query({ action: "tool_invocation", limit: 1000 });
      return records.some(
        (r) => r.details.error_type === "EgressPolicyDeniedError" && r.outcome === "denied",
      );
    });
  });

  it("governs a call routed through a group by the member's policy", async () => {
    events.length = 0;
    const result = await call("pair", "reverse", { text: "abc" });
    expect(result).toMatchObject({ success: false, error_type: "EgressPolicyDeniedError" });
    expect(egressEvents()[0]).toMatchObject({ mcp_server_id: "text", group_id: "pair", verdict: "deny" });
  });

  it("is replaced by PUT; in Audit the same calls go through and each verdict is recorded", async () => {
    events.length = 0;
    const replaced = await rest("PUT", "/mcp_servers/text/l7_policy", { ...enforce, mode: "Audit" });
    expect(replaced.json).toMatchObject({ attached: true, replaced: true, policy: { mode: "Audit" } });
    expect(replaced.json.policy.policyId).not.toBe(enforcedId);

    const leak = await call("text", "echo", { text: `here is my key ${FAKE_KEY}` });
    expect(leak.success).toBe(true);
    expect((await call("text", "reverse", { text: "abc" })).result?.content[0]?.text).toBe("cba");
    expect(egressEvents().map((e) => [e.tool_name, e.mode, e.verdict, e.enforced, e.secret_groups])).toEqual([
      ["echo", "Audit", "deny", false, ["aws-keys"]],
      ["reverse", "Audit", "deny", false, []],
    ]);
    expect(JSON.stringify(egressEvents())).not.toContain(FAKE_KEY);
  });

  it("in Enforce holds a requireApproval match for a human decision through the approval gate", async () => {
    await rest("PUT", "/mcp_servers/text/l7_policy", {
      tools: { allow: ["*"], requireApproval: ["upper*"] },
    });
    const pendingFor = async (text: string) => {
      let found: { approval_id: string } | undefined;
      await waitFor(async () => {
        const { json } = await rest("GET", "/approvals?state=pending");
        found = (json as { approval_id: string; tool_name: string; arguments: { text?: string } }[]).find(
          (a) => a.tool_name === "uppercase" && a.arguments.text === text,
        );
        return found !== undefined;
      });
      return found!.approval_id;
    };

    const approved = call("text", "uppercase", { text: "approve me" });
    const first = await pendingFor("approve me");
    expect((await rest("POST", `/approvals/${first}/resolve`, { decision: "approve" })).status).toBe(200);
    expect((await approved).result?.content[0]?.text).toBe("APPROVE ME");

    const refused = call("text", "uppercase", { text: "deny me" });
    const second = await pendingFor("deny me");
    expect((await rest("POST", `/approvals/${second}/resolve`, { decision: "deny" })).status).toBe(200);
    expect((await refused).success).toBe(false);
  });

  it("is cleared by DELETE, after which calls are no longer evaluated and reads answer 404", async () => {
    await rest("PUT", "/mcp_servers/text/l7_policy", { tools: { deny: ["*"] } });
    expect((await call("text", "echo", { text: "x" })).error_type).toBe("EgressPolicyDeniedError");
    const deleted = await rest("DELETE", "/mcp_servers/text/l7_policy");
    expect(deleted).toEqual({ status: 200, json: { mcp_server_id: "text", deleted: true } });
    expect((await rest("GET", "/mcp_servers/text/l7_policy")).json).toMatchObject({ error: "no_l7_policy" });
    expect((await rest("DELETE", "/mcp_servers/text/l7_policy")).status).toBe(404);
    events.length = 0;
    expect((await call("text", "echo", { text: "x" })).success).toBe(true);
    expect(egressEvents()).toEqual([]);
  });
});

describe("an L7 egress policy without an approval gate", () => {
  it("refuses a requireApproval match with EgressPolicyApprovalRequiredError", async () => {
    const bare = await startTestGateway(`approvals: {enabled: false}\n${fleetYaml()}`);
    try {
      const url = await bare.app.listen({ host: "127.0.0.1", port: 0 });
      const bareClient = await connectHttp(url);
      const attached = await bare.app.inject({
        method: "PUT",
        url: "/api/mcp_servers/text/l7_policy",
        payload: { tools: { allow: ["*"], requireApproval: ["upper*"] } },
      });
      expect(attached.statusCode).toBe(200);
      const { json } = await callJson(bareClient, "gateway_call", {
        calls: [
          { mcp_server: "text", tool: "uppercase", arguments: { text: "x" } },
          { mcp_server: "text", tool: "lowercase", arguments: { text: "X" } },
        ],
      });
      expect(json.results.map((r: CallResult) => [r.success, r.error_type])).toEqual([
        [false, "EgressPolicyApprovalRequiredError"],
        [true, null],
      ]);
      await bareClient.close();
    } finally {
      await bare.close();
    }
  });
});

describe("an L7 egress policy of a removed server", () => {
  it("stays stored under the id, readable and removable, and applies again to a server registered under it", async () => {
    const registration = { mcp_server_id: "passing", mode: "subprocess", command: ["node", TEXT] };
    expect((await rest("POST", "/mcp_servers/", registration)).status).toBe(201);
    expect((await rest("PUT", "/mcp_servers/passing/l7_policy", { tools: { deny: ["*"] } })).status).toBe(
      200,
    );
    expect((await rest("DELETE", "/mcp_servers/passing")).status).toBe(200);
    expect((await rest("GET", "/mcp_servers/passing/l7_policy")).json).toMatchObject({
      tools: { deny: ["*"] },
    });
    expect((await rest("PUT", "/mcp_servers/passing/l7_policy", {})).json.error.code).toBe(
      "McpServerNotFoundError",
    );

    expect((await rest("POST", "/mcp_servers/", registration)).status).toBe(201);
    expect((await call("passing", "echo", { text: "x" })).error_type).toBe("EgressPolicyDeniedError");
    expect((await rest("DELETE", "/mcp_servers/passing")).status).toBe(200);
    expect(await rest("DELETE", "/mcp_servers/passing/l7_policy")).toEqual({
      status: 200,
      json: { mcp_server_id: "passing", deleted: true },
    });
    expect((await rest("GET", "/mcp_servers/passing/l7_policy")).json.error.code).toBe(
      "McpServerNotFoundError",
    );
  });
});

describe("an L7 egress policy on durable storage", () => {
  it("survives a restart and is enforced by the next process", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "airlock-l7-")), "airlock.db");
    const yaml = `persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(path)}}}
mcp_servers:
  text:
    command: [node, ${JSON.stringify(TEXT)}]
`;
    const start = () => {
      const { config, env } = parseConfig(yaml, { env: { PATH: process.env.PATH } });
      return createGateway({ config, env, logger: pino({ level: "silent" }), instanceLabel: "l7" });
    };
    const first = await start();
    const app = await first.http();
    const attached = await app.inject({
      method: "POST",
      url: "/api/mcp_servers/text/l7_policy",
      payload: { tools: { allow: ["echo"] } },
    });
    expect(attached.statusCode).toBe(200);
    const policyId = attached.json().policy.policyId;
    await app.close();
    await first.shutdown();

    const second = await start();
    const app2 = await second.http();
    const url = await app2.listen({ host: "127.0.0.1", port: 0 });
    const client2 = await connectHttp(url);
    try {
      const read = await app2.inject({ method: "GET", url: "/api/mcp_servers/text/l7_policy" });
      expect(read.json()).toMatchObject({ policyId, tools: { allow: ["echo"] }, defaultAction: "Deny" });
      const { json } = await callJson(client2, "gateway_call", {
        calls: [
          { mcp_server: "text", tool: "echo", arguments: { text: "hi" } },
          { mcp_server: "text", tool: "reverse", arguments: { text: "abc" } },
        ],
      });
      expect(json.results.map((r: CallResult) => [r.success, r.error_type])).toEqual([
        [true, null],
        [false, "EgressPolicyDeniedError"],
      ]);
    } finally {
      await client2.close();
      await app2.close();
      await second.shutdown();
    }
  });
});
