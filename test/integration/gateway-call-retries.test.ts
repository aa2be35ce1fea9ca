/**
 * `gateway_call`'s `max_attempts`: retryable failures are tried again after a pause (100 ms,
 * doubling), so a busy concurrency budget can free up in between.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLABLE, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway(`
mcp_servers:
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    max_concurrency: 1
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
  await callJson(client, "gateway_start", { mcp_server: "ctl" });
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("gateway_call retries", () => {
  it("retries a call refused by a busy budget after a pause, and it succeeds once the budget frees", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [
        { mcp_server: "ctl", tool: "sleep", arguments: { ms: 150 } },
        { mcp_server: "ctl", tool: "echo", arguments: { message: "after" } },
      ],
      max_concurrency: 2,
      max_attempts: 4,
    });
    expect(json).toMatchObject({ success: true, succeeded: 2 });
    const history = await gw.app.inject({ method: "GET", url: "/api/mcp_servers/ctl/tools/history" });
    const entries = history.json().history as { event_type: string; error_type?: string }[];
    // One of the two was refused while the other held the budget, then served: every attempt is recorded.
    expect(
      entries.filter((entry) => entry.error_type === "TenantQuotaExceeded").length,
    ).toBeGreaterThanOrEqual(1);
    expect(entries.filter((entry) => entry.event_type === "ToolInvocationCompleted")).toHaveLength(2);
  });
});
