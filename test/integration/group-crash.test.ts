import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/** Calls that crash the member they reach: counted by the circuit, and once per member. */
let gw: TestGateway;
let client: Client;

const member = (id: string) => `
  ${id}:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]`;

beforeAll(async () => {
  gw = await startTestGateway(`
mcp_servers:${member("c1")}${member("c2")}${member("c3")}
  crashy:
    mode: group
    strategy: round_robin
    auto_start: false
    health: {unhealthy_threshold: 2, healthy_threshold: 1}
    circuit_breaker: {failure_threshold: 3}
    members: [{id: c1}, {id: c2}, {id: c3}]
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

describe("calls lost with a crashing member", () => {
  it("open the circuit at failure_threshold, and count once against each member", async () => {
    for (let i = 0; i < 3; i++) {
      const { json } = await callJson(client, "gateway_call", {
        calls: [{ mcp_server: "crashy", tool: "crash", arguments: {} }],
      });
      expect(json.results[0]).toMatchObject({ success: false, error_type: "ToolInvocationError" });
    }
    const view = (await gw.app.inject({ method: "GET", url: "/api/groups/crashy" })).json();
    expect(view.circuit_open).toBe(true);
    expect(
      view.members.map((m: { id: string; consecutive_failures: number }) => [m.id, m.consecutive_failures]),
    ).toEqual([
      ["c1", 1],
      ["c2", 1],
      ["c3", 1],
    ]);
  });
});
