import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";

/** `GET /api/groups/{id}/settings`: what the group object does not carry, read from the live group. */
let gw: TestGateway;

const member = (id: string) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]`;

beforeAll(async () => {
  gw = await startTestGateway(`
mcp_servers:${member("c1")}${member("c2")}
  team:
    mode: group
    strategy: round_robin
    min_healthy: 1
    auto_start: false
    health: {unhealthy_threshold: 3, healthy_threshold: 2}
    circuit_breaker: {failure_threshold: 5}
    canary: {member: c2, split_pct: 20, pinned_tenants: {t1: c1}}
    members: [{id: c1}, {id: c2}]
  plain:
    mode: group
    auto_start: false
    members: [{id: c1}]
`);
});
afterAll(async () => {
  await gw?.close();
});

const settings = async (id: string) => {
  const response = await gw.app.inject({ method: "GET", url: `/api/groups/${id}/settings` });
  return { status: response.statusCode, body: response.json() };
};

describe("a group's settings", () => {
  it("answers the circuit breaker's threshold and run, rotation thresholds and the canary", async () => {
    expect(await settings("team")).toEqual({
      status: 200,
      body: {
        group_id: "team",
        strategy: "round_robin",
        min_healthy: 1,
        unhealthy_threshold: 3,
        healthy_threshold: 2,
        circuit_breaker: { failure_threshold: 5, open: false, failure_run: 0 },
        canary: { member: "c2", split_pct: 20, pinned_tenants: { t1: "c1" } },
      },
    });
    // The group object keeps its own fields only.
    const object = (await gw.app.inject({ method: "GET", url: "/api/groups/team" })).json();
    expect(object).not.toHaveProperty("canary");
    expect(object).not.toHaveProperty("circuit_breaker");
  });

  it("counts a failed call in the circuit's failure run", async () => {
    const call = await gw.app.inject({
      method: "POST",
      url: "/api/tools/call",
      payload: { mcp_server: "team", tool: "crash", arguments: {} },
    });
    expect(call.statusCode).toBe(500);
    expect(call.json().error.code).toBe("ToolInvocationError");
    expect((await settings("team")).body.circuit_breaker).toEqual({
      failure_threshold: 5,
      open: false,
      failure_run: 1,
    });
  });

  it("answers the defaults of a group that sets none, and 404 for an unknown group", async () => {
    const plain = await settings("plain");
    expect(plain.body).toMatchObject({
      circuit_breaker: { failure_threshold: 10, open: false, failure_run: 0 },
      canary: null,
    });
    const unknown = await settings("nowhere");
    expect(unknown.status).toBe(404);
  });
});
