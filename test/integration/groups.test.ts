import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

let gw: TestGateway;
let client: Client;

const member = (id: string) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    env: {MEMBER: ${id}}`;

beforeAll(async () => {
  gw = await startTestGateway(`
mcp_servers:${member("m1")}${member("m2")}${member("m3")}
  pool:
    mode: group
    strategy: round_robin
    min_healthy: 2
    auto_start: false
    health: {unhealthy_threshold: 1, healthy_threshold: 1}
    circuit_breaker: {failure_threshold: 3}
    members: [{id: m1}, {id: m2}, {id: m3}]
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

const inject = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object) =>
  gw.app.inject({ method, url, ...(payload && { payload }) });

const whoServed = async (count: number) => {
  const calls = Array.from({ length: count }, () => ({
    mcp_server: "pool",
    tool: "env",
    arguments: { name: "MEMBER" },
  }));
  const { json } = await callJson(client, "gateway_call", { calls, max_concurrency: 1 });
  return json.results.map(
    (r: { success: boolean; result?: { content: { text: string }[] }; error_type?: string }) =>
      r.success ? r.result?.content[0]?.text : r.error_type,
  );
};

describe("a group declared in the configuration", () => {
  it("reads as a cold group that still routes: healthy_count 0, available", async () => {
    const res = await inject("GET", "/api/groups/pool");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      group_id: "pool",
      strategy: "round_robin",
      min_healthy: 2,
      healthy_count: 0,
      total_members: 3,
      is_available: true,
      circuit_open: false,
    });
  });

  it("spreads calls round robin over its members", async () => {
    const served = await whoServed(6);
    expect(served).toEqual(["m1", "m2", "m3", "m1", "m2", "m3"]);
    const view = (await inject("GET", "/api/groups/pool")).json();
    expect(view).toMatchObject({ state: "healthy", healthy_count: 3, members_in_rotation_count: 3 });
  });

  it("lists the tools of the member its strategy picks, with the group's state (gateway_tools)", async () => {
    const { json } = await callJson(client, "gateway_tools", { mcp_server: "pool" });
    expect(json).toMatchObject({ mcp_server: "pool", state: "healthy", group: true });
    expect(json).not.toHaveProperty("predefined");
    expect(json.tools.map((tool: { name: string }) => tool.name)).toContain("env");
  });

  it("routes nothing to a member after it crashed and left rotation", async () => {
    const m2 = gw.gateway.services.fleet.require("m2");
    await gw.gateway.services.invoker
      .call(m2, "crash", {}, { callId: "boom", timeoutMs: 5_000 })
      .catch(() => undefined);
    await waitFor(() => m2.lifecycle.state === "dead");
    // The next call routed to m2 fails and takes it out of rotation (unhealthy_threshold 1).
    const served = await whoServed(6);
    expect(served.filter((who: string) => who === "m2").length).toBe(0);
    const view = (await inject("GET", "/api/groups/pool")).json();
    const m2View = view.members.find((m: { id: string }) => m.id === "m2");
    expect(m2View).toMatchObject({ in_rotation: false });
    expect(view.healthy_count).toBeLessThanOrEqual(view.members_in_rotation_count);
    expect(view.members_in_rotation_count).toBeLessThanOrEqual(view.total_members);
  });

  it("is listed by gateway_group_list and gateway_list, and described by gateway_details", async () => {
    const list = await callJson(client, "gateway_group_list");
    expect(list.json.groups.map((g: { group_id: string }) => g.group_id)).toEqual(["pool"]);
    const all = await callJson(client, "gateway_list");
    expect(all.json.groups).toHaveLength(1);
    const details = await callJson(client, "gateway_details", { mcp_server: "pool" });
    expect(details.json).toMatchObject({ group_id: "pool", total_members: 3 });
    const status = await callJson(client, "gateway_status");
    expect(status.json.groups[0]).toMatchObject({
      id: "pool",
      indicator: expect.stringMatching(/^\[[A-Z]+\]$/),
    });
  });

  it("is skipped by gateway_warm, which warms the servers named beside it", async () => {
    const { json } = await callJson(client, "gateway_warm", { mcp_servers: "pool,m1,ghost" });
    expect(json.failed).toEqual([{ id: "ghost", error: "McpServer not found" }]);
    expect([...json.warmed, ...json.already_warm]).toEqual(["m1"]);
    expect(json.skipped_dead).toEqual([]);
  });

  it("rebalances through REST and the tool", async () => {
    const rest = await inject("POST", "/api/groups/pool/rebalance");
    expect(rest.json()).toEqual({ status: "rebalanced", group_id: "pool" });
    const tool = await callJson(client, "gateway_group_rebalance", { group: "pool" });
    expect(tool.json).toMatchObject({ status: "rebalanced", group_id: "pool", total_members: 3 });
  });

  it("stops and starts every member through gateway_stop and gateway_start", async () => {
    const stopped = await callJson(client, "gateway_stop", { mcp_server: "pool" });
    expect(stopped.json).toMatchObject({ group: "pool", stopped: true });
    const started = await callJson(client, "gateway_start", { mcp_server: "pool" });
    expect(started.json).toMatchObject({ group: "pool", members_started: 3, total_members: 3 });
  });

  it("records a group call in the audit trail with the group and the member that served it", async () => {
    await whoServed(1);
    await waitFor(
      async () =>
        (await gw.gateway.services.repositories.audit.query({ action: "tool_invocation" })).length > 0,
    );
    const [latest] = await gw.gateway.services.repositories.audit.query({
      action: "tool_invocation",
      limit: 1,
    });
    expect(latest).toMatchObject({
      actor: "anonymous",
      target: "pool",
      outcome: "success",
      details: {
        "mcp.server.id": "pool",
        "hangar.route.backend": expect.stringMatching(/^m[123]$/),
        "mcp.tool.status": "success",
      },
    });
  });

  it("lists the calls routed through the group as the group's tool history, naming the member", async () => {
    await whoServed(2);
    const res = await inject("GET", "/api/mcp_servers/pool/tools/history");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.mcp_server_id).toBe("pool");
    expect(body.history.length).toBeGreaterThanOrEqual(2);
    expect(body.history.at(-1)).toMatchObject({
      event_type: "ToolInvocationCompleted",
      mcp_server_id: "pool",
      route_backend: expect.stringMatching(/^m[123]$/),
      tool_name: "env",
    });
  });

  it("refuses to delete a declared group with 409", async () => {
    expect((await inject("DELETE", "/api/groups/pool")).statusCode).toBe(409);
  });
});

describe("groups through REST", () => {
  it("are created, updated, given members, and deleted with the spec's bodies", async () => {
    expect((await inject("GET", "/api/groups")).statusCode).toBe(307);
    const created = await inject("POST", "/api/groups/", { group_id: "adhoc", strategy: "priority" });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ group_id: "adhoc", created: true });
    expect((await inject("POST", "/api/groups/", { group_id: "adhoc" })).statusCode).toBe(422);
    expect((await inject("POST", "/api/groups/", { strategy: "random" })).json()).toMatchObject({
      error: "missing_fields",
    });

    const added = await inject("POST", "/api/groups/adhoc/members", { member_id: "m1", priority: 2 });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toEqual({ group_id: "adhoc", mcp_server_id: "m1", added: true });
    await inject("POST", "/api/groups/adhoc/members", { member_id: "m3", priority: 1 });
    expect((await inject("POST", "/api/groups/adhoc/members", { member_id: "ghost" })).statusCode).toBe(404);

    const updated = await inject("PUT", "/api/groups/adhoc", { min_healthy: 1, description: "by hand" });
    expect(updated.json()).toEqual({ group_id: "adhoc", updated: true });
    const view = (await inject("GET", "/api/groups/adhoc")).json();
    expect(view).toMatchObject({ strategy: "priority", description: "by hand", total_members: 2 });

    const removed = await inject("DELETE", "/api/groups/adhoc/members/m1");
    expect(removed.json()).toEqual({ group_id: "adhoc", mcp_server_id: "m1", removed: true });
    const deleted = await inject("DELETE", "/api/groups/adhoc");
    expect(deleted.json()).toEqual({ group_id: "adhoc", deleted: true });
    expect((await inject("GET", "/api/groups/adhoc")).statusCode).toBe(404);
  });
});

describe("the circuit breaker of a group", () => {
  it("opens after failure_threshold member failures in a row and closes on a rebalance, with no timer", async () => {
    const calls = Array.from({ length: 3 }, () => ({
      mcp_server: "pool",
      tool: "sleep",
      arguments: { ms: 2_500 },
      timeout: 1,
    }));
    const { json } = await callJson(client, "gateway_call", { calls, max_concurrency: 1 });
    expect(json.results.map((r: { error_type: string }) => r.error_type)).toEqual([
      "ToolTimeoutError",
      "ToolTimeoutError",
      "ToolTimeoutError",
    ]);
    const open = (await inject("GET", "/api/groups/pool")).json();
    expect(open).toMatchObject({ circuit_open: true, state: "degraded" });
    expect(await whoServed(1)).toEqual(["CircuitBreakerOpen"]);

    await inject("POST", "/api/groups/pool/rebalance");
    const closed = (await inject("GET", "/api/groups/pool")).json();
    expect(closed.circuit_open).toBe(false);
    expect(closed.members_in_rotation_count).toBeGreaterThanOrEqual(2);
  });
});

describe("auto_start", () => {
  it("starts the members of an auto_start group when the gateway's background work starts", async () => {
    const own = await startTestGateway(`
mcp_servers:${member("a1")}${member("a2")}
  eager:
    mode: group
    auto_start: true
    members: [{id: a1}, {id: a2}]
`);
    try {
      own.gateway.startBackground();
      const { fleet } = own.gateway.services;
      await waitFor(() => ["a1", "a2"].every((id) => fleet.require(id).lifecycle.state === "ready"), 15_000);
      expect(own.gateway.services.groups.view("eager")).toMatchObject({ healthy_count: 2, state: "healthy" });
    } finally {
      await own.close();
    }
  });
});

describe("a least_connections group", () => {
  it("spreads the calls of one batch that run at once over its members", async () => {
    for (const id of ["l1", "l2"]) {
      const created = await inject("POST", "/api/mcp_servers/", {
        mcp_server_id: id,
        mode: "subprocess",
        command: ["node", CONTROLLABLE],
      });
      expect(created.statusCode).toBe(201);
    }
    expect(
      (await inject("POST", "/api/groups/", { group_id: "least", strategy: "least_connections" })).statusCode,
    ).toBe(201);
    for (const id of ["l1", "l2"]) {
      expect((await inject("POST", "/api/groups/least/members", { member_id: id })).statusCode).toBe(201);
    }
    const { fleet } = gw.gateway.services;
    await Promise.all(["l1", "l2"].map((id) => fleet.start(fleet.require(id), false)));
    const served = () => ["l1", "l2"].map((id) => fleet.require(id).stats.total_invocations);
    const before = served();
    const calls = Array.from({ length: 6 }, () => ({
      mcp_server: "least",
      tool: "sleep",
      arguments: { ms: 300 },
    }));
    const { json } = await callJson(client, "gateway_call", { calls, max_concurrency: 6 });
    expect(json.results.every((r: { success: boolean }) => r.success)).toBe(true);
    const after = served();
    expect(after.map((count, i) => count - (before[i] ?? 0))).toEqual([3, 3]);
  });

  it("counts a crash and the call it took as one failure of the member", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "least", tool: "crash", arguments: {} }],
    });
    expect(json.results[0].success).toBe(false);
    const view = (await inject("GET", "/api/groups/least")).json();
    const crashed = view.members.filter((m: { state: string }) => m.state === "dead");
    expect(crashed).toHaveLength(1);
    expect(crashed[0]).toMatchObject({ consecutive_failures: 1, in_rotation: true });
  });

  it("loses a member whose server is deleted: no dead member left in rotation", async () => {
    expect((await inject("DELETE", "/api/mcp_servers/l2")).statusCode).toBe(200);
    const view = (await inject("GET", "/api/groups/least")).json();
    expect(view.members.map((m: { id: string }) => m.id)).toEqual(["l1"]);
    expect(view).toMatchObject({ total_members: 1 });
    const stored = (await gw.gateway.services.repositories.groupConfigs.list()).find(
      (group) => group.group_id === "least",
    );
    expect(stored?.members?.map((m) => m.id)).toEqual(["l1"]);
  });
});
