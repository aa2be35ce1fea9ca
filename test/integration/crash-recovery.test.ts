import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway();
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

const call = (tool: string, args: Record<string, unknown> = {}) =>
  callJson(client, "gateway_call", { calls: [{ mcp_server: "ctl", tool, arguments: args }] });

describe("a subprocess upstream that crashes", () => {
  it("is seen dead with reason crashed, refused inside its backoff, and restarted by the next call after it", async () => {
    const first = await call("echo", { message: "before" });
    expect(first.json.results[0].success).toBe(true);

    const crashed = await call("crash");
    expect(crashed.json.results[0]).toMatchObject({ success: false });
    await waitFor(() => gw.gateway.services.fleet.require("ctl").lifecycle.state === "dead");

    const detail = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/ctl" })).json();
    expect(detail).toMatchObject({
      state: "dead",
      alive: false,
      dead: { reason: "crashed", revived_by: "call_or_start" },
    });
    const retryAt = Date.parse(detail.dead.retry_allowed_at);

    const refused = await call("echo", { message: "too soon" });
    expect(refused.json.results[0]).toMatchObject({ success: false, error_type: "CircuitBreakerOpen" });

    await new Promise((r) => setTimeout(r, Math.max(0, retryAt - Date.now()) + 100));
    const after = await call("echo", { message: "after" });
    expect(after.json.results[0].success).toBe(true);
    expect(gw.gateway.services.fleet.require("ctl").lifecycle.state).toBe("ready");

    const logs = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/ctl/logs" })).json();
    expect(logs.logs.some((l: { content: string }) => l.content.includes("connection lost"))).toBe(true);
  });

  it("a deliberate start revives a dead server at once", async () => {
    await call("crash");
    await waitFor(() => gw.gateway.services.fleet.require("ctl").lifecycle.state === "dead");
    const res = await gw.app.inject({ method: "POST", url: "/api/mcp_servers/ctl/start" });
    expect(res.statusCode).toBe(200);
    expect(res.json().state).toBe("ready");
  });
});
