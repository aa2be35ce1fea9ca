import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { Peer } from "../support/ws-peer.js";

let gw: TestGateway;
let base: string;

beforeAll(async () => {
  gw = await startTestGateway();
  base = (await gw.app.listen({ host: "127.0.0.1", port: 0 })).replace("http", "ws");
});
afterAll(async () => {
  await gw.close();
});

describe("the gateway's /api/ws/events", () => {
  it("streams the lifecycle and invocation events of a filtered server, in order", async () => {
    const peer = new Peer(`${base}/api/ws/events`);
    await peer.subscribe({ event_types: ["ToolInvocation*", "McpServerStarted"], mcp_server_ids: ["text"] });
    const { fleet, invoker } = gw.gateway.services;
    await invoker.call(fleet.require("math"), "add", { a: 1, b: 2 }, { callId: "other", timeoutMs: 10_000 });
    await invoker.call(
      fleet.require("text"),
      "echo",
      { message: "hi" },
      { callId: "mine", timeoutMs: 10_000 },
    );
    const completed = await peer.next((f) => f.event_type === "ToolInvocationCompleted");
    expect(completed).toMatchObject({ mcp_server_id: "text", tool_name: "echo", call_id: "mine" });
    expect(typeof completed.occurred_at).toBe("number");
    expect(completed.produced_by).toBe(gw.gateway.services.instance.instance_id);
    expect(peer.events().map((f) => f.event_type)).toEqual(["McpServerStarted", "ToolInvocationCompleted"]);
    peer.close();
  });

  it("answers a plain GET, without the upgrade, 426 with a JSON body", async () => {
    for (const [method, path] of [
      ["GET", "events"],
      ["HEAD", "events"],
      ["GET", "state"],
      ["GET", "providers/text/logs"],
    ] as const) {
      const response = await fetch(`${base.replace("ws", "http")}/api/ws/${path}`, { method });
      expect([method, response.status, response.headers.get("upgrade")]).toEqual([method, 426, "websocket"]);
      if (method === "GET") {
        expect(await response.json()).toEqual({
          error: "upgrade_required",
          detail: "this path serves a WebSocket: send the request with Upgrade: websocket",
        });
      }
    }
  });

  it("refuses a foreign Origin with close code 1008", async () => {
    const peer = new Peer(`${base}/api/ws/events`, { origin: "https://evil.example" });
    expect(await peer.closed).toMatchObject({ code: 1008 });
  });
});

describe("the gateway's /api/ws/state", () => {
  it("streams state changes only", async () => {
    const peer = new Peer(`${base}/api/ws/state`);
    await peer.subscribe({});
    const { fleet, invoker } = gw.gateway.services;
    await invoker.call(fleet.require("text"), "echo", { message: "hi" }, { callId: "s", timeoutMs: 10_000 });
    await fleet.stopServer(fleet.require("text"), "user_request");
    const stopped = await peer.next((f) => f.event_type === "ProviderStateChanged" && f.new_state === "cold");
    expect(stopped).toMatchObject({ mcp_server_id: "text" });
    // A group's state changes with its member's.
    const inject = (url: string, payload: object) => gw.app.inject({ method: "POST", url, payload });
    expect((await inject("/api/groups/", { group_id: "solo" })).statusCode).toBe(201);
    expect((await inject("/api/groups/solo/members", { member_id: "math" })).statusCode).toBe(201);
    await fleet.start(fleet.require("math"), true);
    await peer.next((f) => f.event_type === "GroupStateChanged" && f.group_id === "solo");
    const types = new Set(peer.events().map((f) => f.event_type));
    expect([...types].sort()).toEqual(["GroupStateChanged", "ProviderStateChanged"]);
    peer.close();
  });
});

describe("the gateway's /api/ws/providers/{id}/logs", () => {
  it("sends the server's kept lines, then each new one, as log frames", async () => {
    const text = gw.gateway.services.fleet.require("text");
    text.logs.append("stderr", "kept before the connection");
    const peer = new Peer(`${base}/api/ws/providers/text/logs`);
    const kept = await peer.next((f) => f.content === "kept before the connection");
    expect(kept).toMatchObject({ type: "log", mcp_server_id: "text", stream: "stderr" });
    expect(typeof kept.recorded_at).toBe("number");
    text.logs.append("stderr", "written while connected");
    await peer.next((f) => f.content === "written while connected");
    peer.close();
  });

  it("refuses an unknown server with close code 1008", async () => {
    const peer = new Peer(`${base}/api/ws/providers/ghost/logs`);
    expect(await peer.closed).toEqual({ code: 1008, reason: "McpServer not found: ghost" });
  });
});
