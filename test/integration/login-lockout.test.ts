/**
 * The login lockout counts failures per direct peer as well as per forwarded address: a trusted
 * peer (loopback, by default) rotating `X-Forwarded-For` is stopped once the peer's own budget
 * (ten times `max_attempts`) is spent, on REST, on `/mcp` and on the WebSocket handshake; an
 * address named through a peer is locked out only as seen through that peer; with
 * `MCP_TRUSTED_PROXIES` empty, `X-Forwarded-For` is not read at all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROXY_ATTEMPTS_FACTOR } from "../../src/app/auth/login-lockout.js";
import { createApiKey } from "../support/api-keys.js";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { rawInitialize } from "../support/mcp-client.js";
import { Peer } from "../support/ws-peer.js";

const MAX_ATTEMPTS = 3;
const yaml = `
auth:
  enabled: true
  rate_limit: {max_attempts: ${MAX_ATTEMPTS}, window_seconds: 60, lockout_seconds: 30}
  role_assignments:
    - {principal: alice, role: admin}
mcp_servers: {}
`;

/** A REST request as `remoteAddress` sends it, naming `forwarded` in `X-Forwarded-For` when given. */
function get(gw: TestGateway, key: string, remoteAddress: string, forwarded?: string) {
  return gw.app.inject({
    method: "GET",
    url: "/api/system/",
    remoteAddress,
    headers: { "x-api-key": key, ...(forwarded !== undefined && { "x-forwarded-for": forwarded }) },
  });
}

const BAD_KEY = "mcp_wrong";

describe("with the default trusted proxies (loopback)", () => {
  let gw: TestGateway;
  let good: string;
  const opened: Peer[] = [];

  beforeAll(async () => {
    gw = await startTestGateway(yaml);
    good = await createApiKey(gw, "alice");
  });
  afterEach(() => {
    for (const peer of opened.splice(0)) peer.close();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("locks a named address out only as seen through the peer that named it", async () => {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      expect((await get(gw, BAD_KEY, "127.0.0.1", "203.0.113.9")).statusCode).toBe(401);
    }
    const throughLoopback = await get(gw, good, "127.0.0.1", "203.0.113.9");
    expect(throughLoopback.statusCode).toBe(429);
    expect(throughLoopback.json().error).toBe("too_many_attempts");
    // The real client, connecting directly or through another peer, is not locked out.
    expect((await get(gw, good, "203.0.113.9")).statusCode).toBe(200);
    expect((await get(gw, good, "127.0.0.1", "203.0.113.10")).statusCode).toBe(200);
  });

  it("stops a trusted peer rotating X-Forwarded-For once the peer's budget is spent", async () => {
    // The first test spent MAX_ATTEMPTS of the loopback peer's budget already.
    const budget = MAX_ATTEMPTS * PROXY_ATTEMPTS_FACTOR - MAX_ATTEMPTS;
    for (let i = 0; i < budget; i++) {
      expect((await get(gw, BAD_KEY, "127.0.0.1", `198.51.100.${i + 1}`)).statusCode).toBe(401);
    }
    // Every request through that peer is refused now, whatever address it names, a valid key too.
    const fresh = await get(gw, good, "127.0.0.1", "198.51.100.200");
    expect(fresh.statusCode).toBe(429);
    expect(Number(fresh.headers["retry-after"])).toBeGreaterThan(0);
    expect((await get(gw, good, "127.0.0.1")).statusCode).toBe(429);
    // A peer that is not a proxy is judged on its own failures.
    expect((await get(gw, good, "192.0.2.44")).statusCode).toBe(200);
  });

  it("refuses the locked peer on /mcp and on the WebSocket handshake too", async () => {
    const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
    const mcp = await rawInitialize(base, { "x-api-key": good, "x-forwarded-for": "198.51.100.201" });
    expect(mcp.status).toBe(429);
    const ws = base.replace("http", "ws");
    const peer = new Peer(`${ws}/api/ws/events`, {
      headers: { "x-api-key": good, "x-forwarded-for": "198.51.100.202" },
    });
    opened.push(peer);
    expect(await peer.closed).toEqual({
      code: 1008,
      reason: "Too many failed authentication attempts; try again later",
    });
  });
});

describe("the WebSocket handshake", () => {
  it("counts failed handshakes against the peer as REST requests do", async () => {
    const gw = await startTestGateway(yaml);
    try {
      const good = await createApiKey(gw, "alice");
      const ws = (await gw.app.listen({ host: "127.0.0.1", port: 0 })).replace("http", "ws");
      for (let i = 0; i < MAX_ATTEMPTS * PROXY_ATTEMPTS_FACTOR; i++) {
        const peer = new Peer(`${ws}/api/ws/events`, {
          headers: { "x-api-key": BAD_KEY, "x-forwarded-for": `198.51.100.${i + 1}` },
        });
        expect((await peer.closed).code).toBe(1008);
      }
      const locked = await get(gw, good, "127.0.0.1", "198.51.100.250");
      expect(locked.statusCode).toBe(429);
    } finally {
      await gw.close();
    }
  });
});

describe("with MCP_TRUSTED_PROXIES empty", () => {
  it("reads no X-Forwarded-For: a loopback client rotating it is locked out after max_attempts", async () => {
    const gw = await startTestGateway(yaml, { MCP_TRUSTED_PROXIES: "" });
    try {
      const good = await createApiKey(gw, "alice");
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        expect((await get(gw, BAD_KEY, "127.0.0.1", `198.51.100.${i + 1}`)).statusCode).toBe(401);
      }
      expect((await get(gw, good, "127.0.0.1", "198.51.100.99")).statusCode).toBe(429);
      expect((await get(gw, good, "192.0.2.44")).statusCode).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
