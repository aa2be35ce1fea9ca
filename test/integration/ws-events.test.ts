import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/app/context.js";
import { ANONYMOUS } from "../../src/app/context.js";
import type { EventBus } from "../../src/app/event-bus.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { DEFAULT_MAX_JSON_DEPTH } from "../../src/config/schema/operations.js";
import type { DomainEventPayload } from "../../src/domain/events.js";
import { buildHttpApp } from "../../src/edges/http/build-app.js";
import type { EventStreamHub } from "../../src/edges/http/ws/event-stream-hub.js";
import type { StreamCredentials } from "../../src/edges/http/ws/handshake.js";
import {
  EVENT_STREAM_DECORATOR,
  type EventStreamOptions,
} from "../../src/edges/http/ws/register-event-stream.js";
import { Peer } from "../support/ws-peer.js";

let gateway: Gateway;
let bus: EventBus;
const apps: FastifyInstance[] = [];
const peers: Peer[] = [];

beforeAll(async () => {
  const { config, env } = parseConfig("{}", { env: {} });
  gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "ws-test",
    storage: memoryStorage(),
  });
  bus = gateway.services.bus;
});
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.close();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});
afterAll(async () => {
  await gateway.shutdown();
});

/** Timings short enough for tests that must not wait on the keep-alive or the subscribe window. */
const FAST: EventStreamOptions["timings"] = { subscribeWindowMs: 5_000, idleMs: 60_000, closeGraceMs: 200 };

async function serve(options: EventStreamOptions = {}): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildHttpApp(gateway.edges, {
    maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
    webSocket: { timings: FAST, ...options },
  });
  apps.push(app);
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url: `${base.replace("http", "ws")}/api/ws/events` };
}

function connect(url: string, options: { headers?: Record<string, string>; origin?: string } = {}): Peer {
  const peer = new Peer(url, options);
  peers.push(peer);
  return peer;
}

const requested = (server: string, call: string): DomainEventPayload => ({
  type: "ToolInvocationRequested",
  mcp_server_id: server,
  tool_name: "add",
  call_id: call,
});
const started = (server: string): DomainEventPayload => ({
  type: "McpServerStarted",
  mcp_server_id: server,
  tools_count: 2,
  startup_duration_ms: 12,
});
const completed = (server: string, call: string): DomainEventPayload => ({
  type: "ToolInvocationCompleted",
  mcp_server_id: server,
  tool_name: "add",
  call_id: call,
  duration_ms: 3,
  result_size_bytes: 10,
});
/** Events carry `tenant_id` when their producer knows it; none of the current payloads declares it. */
const inTenant = (payload: DomainEventPayload, tenant: string): DomainEventPayload =>
  Object.assign({}, payload, { tenant_id: tenant });

describe("subscribing", () => {
  it("delivers exactly the matching events, in order, as event frames", async () => {
    const { url } = await serve();
    const peer = connect(url);
    const ack = await peer.subscribe({ event_types: ["Tool*"], mcp_server_ids: ["math"] });
    expect(ack).toEqual({ type: "subscribed", event_types: ["Tool*"], mcp_server_ids: ["math"] });

    const before = Date.now() / 1000;
    bus.publish([
      requested("math", "c1"),
      started("math"),
      requested("text", "c2"),
      completed("math", "c1"),
      completed("text", "c2"),
      requested("math", "c3"),
    ]);
    await peer.next((frame) => frame.call_id === "c3");
    // A last matching event after a pause shows nothing else was on its way.
    await new Promise((r) => setTimeout(r, 50));
    bus.publish([requested("math", "end")]);
    await peer.next((frame) => frame.call_id === "end");

    const events = peer.events();
    expect(events.map((e) => [e.event_type, e.call_id])).toEqual([
      ["ToolInvocationRequested", "c1"],
      ["ToolInvocationCompleted", "c1"],
      ["ToolInvocationRequested", "c3"],
      ["ToolInvocationRequested", "end"],
    ]);
    const first = events[0]!;
    expect(first).toEqual({
      event_type: "ToolInvocationRequested",
      event_id: expect.any(String),
      occurred_at: expect.any(Number),
      produced_by: gateway.services.instance.instance_id,
      mcp_server_id: "math",
      tool_name: "add",
      call_id: "c1",
    });
    expect(first.occurred_at as number).toBeGreaterThanOrEqual(before - 1);
    expect(first.occurred_at as number).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    expect(peer.frames.filter((frame) => !("event_type" in frame))).toEqual([ack]);
  });

  it("replaces the filter when a subscribe is sent again", async () => {
    const { url } = await serve();
    const peer = connect(url);
    await peer.subscribe({ event_types: ["McpServerStarted"] });
    bus.publish([started("a"), requested("a", "x1")]);
    await peer.next((frame) => frame.mcp_server_id === "a");

    const ack = await peer.subscribe({ event_types: ["ToolInvocation*"], mcp_server_ids: ["b"] });
    expect(ack).toEqual({ type: "subscribed", event_types: ["ToolInvocation*"], mcp_server_ids: ["b"] });
    bus.publish([started("b"), requested("a", "x2"), requested("b", "x3"), completed("b", "x3")]);
    await peer.next((frame) => frame.event_type === "ToolInvocationCompleted");

    expect(peer.events().map((e) => [e.event_type, e.mcp_server_id])).toEqual([
      ["McpServerStarted", "a"],
      ["ToolInvocationRequested", "b"],
      ["ToolInvocationCompleted", "b"],
    ]);
  });

  it("holds events during the subscribe window, then streams everything when no subscribe came", async () => {
    const { url } = await serve({ timings: { ...FAST, subscribeWindowMs: 400 } });
    const peer = connect(url);
    await peer.opened;
    await new Promise((r) => setTimeout(r, 20));
    bus.publish([started("early"), requested("early", "e1")]);
    await new Promise((r) => setTimeout(r, 100));
    expect(peer.events()).toEqual([]);
    await peer.next((frame) => frame.call_id === "e1");
    expect(peer.events().map((e) => e.event_type)).toEqual(["McpServerStarted", "ToolInvocationRequested"]);
  });

  it("applies a subscribe sent in the window to the events held so far", async () => {
    const { url } = await serve();
    const peer = connect(url);
    await peer.opened;
    await new Promise((r) => setTimeout(r, 20));
    bus.publish([started("held"), requested("held", "h1")]);
    await peer.subscribe({ event_types: ["ToolInvocationRequested"] });
    await peer.next((frame) => frame.call_id === "h1");
    expect(peer.events().map((e) => e.event_type)).toEqual(["ToolInvocationRequested"]);
  });

  it("answers malformed frames with an error frame and keeps the connection open", async () => {
    const { url } = await serve();
    const peer = connect(url);
    await peer.opened;
    peer.send("{not json");
    peer.send({ kind: "subscribe" });
    peer.send({ type: "unsubscribe" });
    peer.send({ type: "subscribe", event_types: "Tool*" });
    peer.send({ type: "subscribe", mcp_server_ids: [1] });
    await peer.next((frame) => frame.type === "error" && String(frame.error).includes("mcp_server_ids"));
    expect(peer.frames).toEqual([
      { type: "error", error: "Frame is not valid JSON" },
      { type: "error", error: 'Frame must be a JSON object with a string "type"' },
      { type: "error", error: 'Unknown frame type "unsubscribe"' },
      { type: "error", error: '"event_types" must be a list of non-empty strings' },
      { type: "error", error: '"mcp_server_ids" must be a list of non-empty strings' },
    ]);
    const ack = await peer.subscribe({});
    expect(ack).toEqual({ type: "subscribed", event_types: [], mcp_server_ids: [] });
    bus.publish([started("after-errors")]);
    await peer.next((frame) => frame.mcp_server_id === "after-errors");
  });
});

describe("the handshake", () => {
  it("refuses a foreign Origin with 1008 and sends it no event", async () => {
    const { url } = await serve();
    const peer = connect(url, { origin: "https://evil.example" });
    bus.publish([started("secret")]);
    expect(await peer.closed).toEqual({ code: 1008, reason: "Origin not allowed" });
    expect(peer.frames).toEqual([]);
  });

  it("accepts loopback origins, configured origins and clients that send no Origin", async () => {
    const { url } = await serve({ allowedOrigins: ["https://console.example.com"] });
    for (const origin of ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:8080"]) {
      await connect(url, { origin }).subscribe({});
    }
    await connect(url, { origin: "https://console.example.com" }).subscribe({});
    await connect(url).subscribe({});
    const other = connect(url, { origin: "https://console.example.com:8443" });
    expect((await other.closed).code).toBe(1008);
  });

  it("closes with 1008 and the authenticator's reason when it refuses", async () => {
    const seen: StreamCredentials[] = [];
    const { url } = await serve({
      apiKeyHeader: "X-Airlock-Key",
      authenticate: async (credentials) => {
        seen.push(credentials);
        return { ok: false, reason: "API key has been revoked" };
      },
    });
    const byHeader = connect(url, { headers: { "X-Airlock-Key": "mcp_k1", Authorization: "Bearer jwt-1" } });
    expect(await byHeader.closed).toEqual({ code: 1008, reason: "API key has been revoked" });
    const byQuery = connect(`${url}?token=mcp_k2`);
    expect(await byQuery.closed).toEqual({ code: 1008, reason: "API key has been revoked" });
    expect(seen).toEqual([{ apiKey: "mcp_k1", bearer: "jwt-1" }, { token: "mcp_k2" }]);
  });

  it("closes an open connection with 1008 once its credential is refused, at the next re-check", async () => {
    let revoked = false;
    const { url } = await serve({
      timings: { ...FAST, recheckMs: 100 },
      authenticate: async () =>
        revoked
          ? { ok: false, reason: "API key has been revoked" }
          : { ok: true, principal: ANONYMOUS, authenticated: false },
    });
    const peer = connect(url);
    const still = await Promise.race([
      peer.closed,
      new Promise((resolve) => setTimeout(() => resolve("open"), 300)),
    ]);
    expect(still).toBe("open");
    revoked = true;
    expect(await peer.closed).toEqual({ code: 1008, reason: "API key has been revoked" });
  });

  it("keeps the ?token= credential out of the request log", async () => {
    const lines: string[] = [];
    const app = await buildHttpApp(gateway.edges, {
      maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
      logger: { level: "info", stream: { write: (line: string) => lines.push(line) } },
      webSocket: { timings: FAST },
    });
    apps.push(app);
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    await connect(`${base.replace("http", "ws")}/api/ws/events?token=mcp_secret_value&x=1`).subscribe({});
    const logged = lines.join("");
    expect(logged).toContain("/api/ws/events?token=[REDACTED]&x=1");
    expect(logged).not.toContain("mcp_secret_value");
  });
});

describe("the handshake with authentication on: decided by the catalog's entry and the roles", () => {
  let guarded: Gateway;
  beforeAll(async () => {
    const { config, env } = parseConfig(
      `
auth:
  enabled: true
  role_assignments:
    - {principal: aud, role: auditor, scope: "tenant:t1"}
`,
      { env: {} },
    );
    guarded = await createGateway({
      config,
      env,
      logger: pino({ level: "silent" }),
      instanceLabel: "ws-test-auth",
      storage: memoryStorage(),
    });
  });
  afterAll(async () => {
    await guarded.shutdown();
  });

  /** The stream of the guarded gateway, its caller established by `principal` (authentication proper is tested above). */
  const guardedStream = async (principal: Principal): Promise<string> => {
    const app = await buildHttpApp(guarded.edges, {
      maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
      webSocket: {
        timings: FAST,
        authenticate: async () => ({ ok: true, principal, authenticated: true }),
      },
    });
    apps.push(app);
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    return `${base.replace("http", "ws")}/api/ws/events`;
  };

  it("closes with 1008 when the principal lacks audit:read", async () => {
    const viewer: Principal = { id: "v", type: "api_key", tenant_id: null, roles: ["viewer"] };
    const peer = connect(await guardedStream(viewer), { headers: { "X-API-Key": "mcp_viewer" } });
    expect(await peer.closed).toEqual({ code: 1008, reason: "Access denied: audit:read required" });
  });

  it("confines a principal granted audit:read at one tenant's scope to that tenant's events", async () => {
    const auditor: Principal = { id: "aud", type: "jwt", tenant_id: "t1", roles: [] };
    const peer = connect(await guardedStream(auditor), { headers: { Authorization: "Bearer token" } });
    await peer.subscribe({});
    guarded.services.bus.publish([
      inTenant(requested("s", "mine-1"), "t1"),
      inTenant(requested("s", "theirs"), "t2"),
      requested("s", "no-tenant"),
      inTenant(requested("s", "mine-2"), "t1"),
    ]);
    await peer.next((frame) => frame.call_id === "mine-2");
    expect(peer.events().map((e) => [e.call_id, e.tenant_id])).toEqual([
      ["mine-1", "t1"],
      ["mine-2", "t1"],
    ]);
  });

  it("streams every tenant's events to a principal granted audit:read globally", async () => {
    const auditor: Principal = { id: "global-aud", type: "jwt", tenant_id: "t1", roles: ["auditor"] };
    const peer = connect(await guardedStream(auditor), { headers: { Authorization: "Bearer token" } });
    await peer.subscribe({});
    guarded.services.bus.publish([inTenant(requested("s", "theirs"), "t2"), requested("s", "last")]);
    await peer.next((frame) => frame.call_id === "last");
    expect(peer.events().map((e) => e.call_id)).toEqual(["theirs", "last"]);
  });
});

describe("keep-alive", () => {
  it("pings a silent client and closes it when no pong comes", async () => {
    const { url } = await serve({ timings: { ...FAST, idleMs: 100, pongTimeoutMs: 100 } });
    const peer = connect(url);
    const openedAt = Date.now();
    const closed = await peer.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toBe("Keep-alive timeout: no pong received");
    expect(peer.frames).toEqual([{ type: "ping" }]);
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(190);
  });

  it("keeps a client that answers each ping with a pong", async () => {
    const { url, app } = await serve({ timings: { ...FAST, idleMs: 60, pongTimeoutMs: 250 } });
    const peer = connect(url);
    let pings = 0;
    const answer = setInterval(() => {
      const count = peer.frames.filter((frame) => frame.type === "ping").length;
      for (; pings < count; pings++) peer.send({ type: "pong" });
    }, 5);
    try {
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      clearInterval(answer);
    }
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(app.getDecorator<EventStreamHub>(EVENT_STREAM_DECORATOR).size).toBe(1);
  });
});

describe("the per-connection queue", () => {
  it("drops the oldest frames beyond 1,024, counts them and says so before the next event", async () => {
    const { url, app } = await serve();
    const peer = connect(url);
    await peer.subscribe({});
    const burst = Array.from({ length: 1_500 }, (_, i) => requested("burst", `b${i}`));
    bus.publish(burst);

    const hub = app.getDecorator<EventStreamHub>(EVENT_STREAM_DECORATOR);
    expect(hub.stats()).toEqual([expect.objectContaining({ queued: 1_024, dropped: 476 })]);

    await peer.next((frame) => frame.call_id === "b1499");
    const afterAck = peer.frames.slice(1);
    expect(afterAck[0]).toEqual({ type: "dropped", count: 476, total: 476 });
    const ids = afterAck.slice(1).map((frame) => frame.call_id);
    expect(ids).toEqual(Array.from({ length: 1_024 }, (_, i) => `b${476 + i}`));
    expect(hub.stats()).toEqual([expect.objectContaining({ queued: 0, sent: 1_024, dropped: 476 })]);
  });

  it("waits for the socket to drain instead of buffering without bound, losing nothing it kept", async () => {
    // A one-byte high-water mark: every frame waits for the previous write to complete.
    const { url } = await serve({ limits: { highWaterMarkBytes: 1 } });
    const peer = connect(url);
    await peer.subscribe({});
    for (let batch = 0; batch < 5; batch++) {
      bus.publish(Array.from({ length: 200 }, (_, i) => requested("drain", `d${batch * 200 + i}`)));
      await new Promise((r) => setImmediate(r));
    }
    await peer.next((frame) => frame.call_id === "d999");
    expect(peer.events().map((e) => e.call_id)).toEqual(Array.from({ length: 1_000 }, (_, i) => `d${i}`));
  });
});

describe("shutdown", () => {
  it("closes every socket with 1001 when the application closes", async () => {
    const { url, app } = await serve();
    const subscribed = connect(url);
    await subscribed.subscribe({});
    const waiting = connect(url);
    await waiting.opened;
    apps.splice(apps.indexOf(app), 1);
    await app.close();
    expect(await subscribed.closed).toEqual({ code: 1001, reason: "Server shutting down" });
    expect(await waiting.closed).toEqual({ code: 1001, reason: "Server shutting down" });
  });
});
