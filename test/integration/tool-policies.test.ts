import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

let gw: TestGateway;
let client: Client;
const server = (id: string, extra = "") => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    env: {MEMBER: ${id}}${extra}`;

beforeAll(async () => {
  gw = await startTestGateway(`
mcp_servers:${server("guarded", "\n    tools: {allow_list: [echo, env, se*], approval_list: [set_listing_failure], approval_timeout_seconds: 1}")}${server("m1")}${server("m2")}
  team:
    mode: group
    auto_start: false
    tools: {deny_list: [sleep]}
    members:
      - {id: m1, tools: {deny_list: [env]}}
      - {id: m2}
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

const call = async (target: string, tool: string, args: Record<string, unknown> = {}) => {
  const { json } = await callJson(client, "gateway_call", {
    calls: [{ mcp_server: target, tool, arguments: args }],
  });
  return json.results[0];
};

describe("a server's tools policy", () => {
  it("hides what its allow list does not match, from tool listings and details", async () => {
    const { json } = await callJson(client, "gateway_tools", { mcp_server: "guarded" });
    expect(json.tools.map((t: { name: string }) => t.name).sort()).toEqual([
      "echo",
      "env",
      "set_listing_failure",
    ]);
    const details = await callJson(client, "gateway_details", { mcp_server: "guarded" });
    expect(details.json.tools_policy).toMatchObject({
      active: true,
      unrestricted: false,
      has_allow_list: true,
      has_deny_list: false,
      filtered_count: expect.any(Number),
    });
    const rest = (await gw.app.inject({ method: "GET", url: "/api/tools/" })).json();
    const names = rest.tools.filter((t: { mcp_server_id: string }) => t.mcp_server_id === "guarded");
    expect(names.map((t: { tool_name: string }) => t.tool_name).sort()).toEqual([
      "echo",
      "env",
      "set_listing_failure",
    ]);
  });

  it("lists only the visible tools in gateway_start, REST start and the tools_count of listings", async () => {
    const visible = ["echo", "env", "set_listing_failure"];
    const started = await callJson(client, "gateway_start", { mcp_server: "guarded" });
    expect(started.json.tools.sort()).toEqual(visible);
    const rest = await gw.app.inject({ method: "POST", url: "/api/mcp_servers/guarded/start" });
    expect(rest.json().tools.sort()).toEqual(visible);
    const listed = await callJson(client, "gateway_list", {});
    const summary = listed.json.mcp_servers.find(
      (s: { mcp_server_id: string }) => s.mcp_server_id === "guarded",
    );
    expect(summary.tools_count).toBe(visible.length);
    const detail = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/guarded" })).json();
    expect(detail.meta.tools_count).toBe(visible.length);
    const all = gw.gateway.services.fleet.require("guarded").tools ?? [];
    expect(all.length).toBeGreaterThan(visible.length);
  });

  it("refuses a call of a hidden tool before it reaches the server", async () => {
    const result = await call("guarded", "crash");
    expect(result).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
    expect(gw.gateway.services.fleet.require("guarded").lifecycle.state).toBe("ready");
  });

  it("holds a tool on its approval list for a human decision, and refuses it when nobody decides", async () => {
    const result = await call("guarded", "set_listing_failure", { failing: true });
    expect(result).toMatchObject({ success: false });
    const approvals = await gw.gateway.services.repositories.approvals.list({});
    expect(
      approvals.some(
        (a: { tool_name: string; state: string }) =>
          a.tool_name === "set_listing_failure" && a.state === "expired",
      ),
    ).toBe(true);
    expect((await call("guarded", "echo", { message: "ok" })).success).toBe(true);
  });
});

describe("group and member policies", () => {
  it("apply the group's policy to every call through it", async () => {
    expect(await call("team", "sleep", { ms: 1 })).toMatchObject({ error_type: "ToolAccessDeniedError" });
  });

  it("route a call only to members whose policy allows the tool, and in turn otherwise", async () => {
    const served = async (tool: string, args: Record<string, unknown>) => {
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await call("team", tool, args);
        outcomes.push(r.success ? r.result.content[0].text : r.error_type);
      }
      return outcomes;
    };
    // m1's own policy denies env: every call goes to m2, none is refused by the rotation's turn.
    expect(await served("env", { name: "MEMBER" })).toEqual(["m2", "m2", "m2", "m2"]);
    // echo is allowed on both: they take turns.
    expect((await served("echo", { message: "hi" })).every((text) => text === "hi")).toBe(true);
    // Which member served each echo: the audit records (written in batches) name it.
    const echoesThroughTeam = async () =>
      (await gw.gateway.services.repositories.audit.query({ action: "tool_invocation", limit: 1000 })).filter(
        (r) => r.target === "team" && r.details["mcp.tool.name"] === "echo",
      );
    await waitFor(async () => (await echoesThroughTeam()).length >= 4);
    const backends = (await echoesThroughTeam()).map((r) => r.details["hangar.route.backend"]);
    expect(backends.sort()).toEqual(["m1", "m1", "m2", "m2"]);
  });
});
