/**
 * Bad input on REST changes nothing: a body that is not a JSON object is refused even where a
 * route needs no body, unknown keys of a tool policy are refused, ids of servers and groups do not
 * collide, and what the router refuses answers in the flat shape without framework codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";

let gw: TestGateway;
let admin: string;

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: admin}
    - {principal: dev, role: developer}
${fleetYaml(`  pool:
    mode: group
    members: [{id: math}]
`)}`);
  admin = await createApiKey(gw, "alice");
});
afterAll(async () => {
  await gw?.close();
});

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const send = (method: Method, url: string, payload?: string | object) =>
  gw.app.inject({
    method,
    url,
    headers: { "x-api-key": admin, "content-type": "application/json" },
    ...(payload !== undefined && { payload }),
  });

describe("a body that is not a JSON object", () => {
  it("is refused with 400 invalid_body on routes that need no body, and nothing happens", async () => {
    const keyId = (await gw.gateway.services.repositories.apiKeys.list("alice", true))[0]?.key_id ?? "";
    for (const [method, url, body] of [
      ["DELETE", `/api/auth/keys/${keyId}`, "zz"],
      ["POST", "/api/config/reload", "[]"],
      ["POST", "/api/mcp_servers/math/start", "garbage"],
      ["POST", "/api/mcp_servers/math/stop", "null"],
      ["POST", "/api/groups/pool/rebalance", "5"],
    ] as const) {
      const res = await send(method, url, body);
      expect([url, res.statusCode, res.json().error]).toEqual([url, 400, "invalid_body"]);
    }
    expect((await send("GET", "/api/mcp_servers/")).statusCode).toBe(200);
    expect(gw.gateway.services.fleet.require("math").lifecycle.state).toBe("cold");
  });

  it("leaves an empty body alone, and a stop reason of the wrong type is refused naming it", async () => {
    expect((await send("POST", "/api/mcp_servers/text/stop", "")).statusCode).toBe(200);
    const res = await send("POST", "/api/mcp_servers/text/stop", { reason: 5 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toContain("reason");
  });
});

describe("a tool access policy", () => {
  it("refuses a key it does not know instead of storing an empty list in its place", async () => {
    expect((await send("POST", "/api/auth/policies/provider/math", { allow_list: ["add"] })).statusCode).toBe(
      200,
    );
    const misspelt = await send("POST", "/api/auth/policies/provider/math", { allowlist: ["sub*"] });
    expect(misspelt.statusCode).toBe(422);
    expect(misspelt.json().error.message).toContain("allowlist");
    const stored = (await send("GET", "/api/auth/policies/provider/math")).json();
    expect(stored.allow_list).toEqual(["add"]);
  });
});

describe("ids and names", () => {
  it("refuses a server id a group holds, and a group strategy it does not know", async () => {
    const server = await send("POST", "/api/mcp_servers/", {
      mcp_server_id: "pool",
      mode: "subprocess",
      command: ["node", "x.mjs"],
    });
    expect(server.statusCode).toBe(422);
    expect(server.json().error.message).toBe("McpServer already exists: pool");
    const group = await send("POST", "/api/groups/", { group_id: "g9", strategy: "bogus" });
    expect(group.statusCode).toBe(422);
    expect(group.json().error.message).toContain("strategy");
    expect((await send("GET", "/api/groups/g9")).statusCode).toBe(404);
  });

  it("refuses a role permission whose parts hold other characters", async () => {
    for (const permission of ["a:b:c d", "a:b:c/d", "a:b:c:d"]) {
      const res = await send("POST", "/api/auth/roles", { role_name: "odd", permissions: [permission] });
      expect([permission, res.statusCode]).toEqual([permission, 422]);
    }
  });
});

describe("paths the router refuses", () => {
  it("answers an empty id segment as a path no route serves", async () => {
    for (const [method, url] of [
      ["DELETE", "/api/mcp_servers/"],
      ["POST", "/api/mcp_servers//start"],
      ["DELETE", "/api/groups/pool/members/"],
    ] as const) {
      const res = await send(method, url);
      expect([url, res.statusCode, res.json().error]).toEqual([url, 404, "not_found"]);
    }
  });

  it("answers bad percent-encoding and an over-long segment in the flat shape, naming no framework", async () => {
    const bad = await send("GET", "/api/mcp_servers/%FF");
    expect([bad.statusCode, bad.json().error]).toEqual([400, "invalid_url"]);
    const long = await send("GET", `/api/mcp_servers/${"x".repeat(5000)}`);
    expect([long.statusCode, long.json().error]).toEqual([414, "uri_too_long"]);
    expect(bad.body + long.body).not.toMatch(/FST_|fastify/i);
  });
});

describe("requests a web page could make", () => {
  it("refuses a foreign Origin or, on loopback, a foreign Host with 403 before anything runs", async () => {
    const register = (headers: Record<string, string>) =>
      gw.app.inject({
        method: "POST",
        url: "/api/mcp_servers/",
        headers: { "x-api-key": admin, "content-type": "text/plain", ...headers },
        payload: JSON.stringify({ mcp_server_id: "csrf", mode: "subprocess", command: ["node", "x.mjs"] }),
      });
    const fromPage = await register({ origin: "http://evil.example" });
    expect(fromPage.statusCode).toBe(403);
    expect(fromPage.json()).toEqual({ error: "forbidden", detail: "Forbidden: Origin http://evil.example" });
    const rebound = await register({ host: "attacker.example" });
    expect([rebound.statusCode, rebound.json().detail]).toEqual([403, "Forbidden: Host attacker.example"]);
    expect(gw.gateway.services.fleet.has("csrf")).toBe(false);
    const local = await register({ origin: "http://localhost:3000" });
    expect(local.statusCode).toBe(201);
    expect((await send("DELETE", "/api/mcp_servers/csrf")).statusCode).toBe(200);
  });
});

describe("what decides what runs on the host", () => {
  it("takes the registering operator's permissions: a developer may edit a server but not its command or env", async () => {
    const developer = await createApiKey(gw, "dev");
    const as = (method: Method, url: string, payload: object) =>
      gw.app.inject({ method, url, headers: { "x-api-key": developer }, payload });
    const register = await as("POST", "/api/mcp_servers/", {
      mcp_server_id: "devs",
      mode: "subprocess",
      command: ["node", "x.mjs"],
    });
    expect(register.statusCode).toBe(403);
    expect(register.json().error.message).toContain("policy:write");
    expect((await as("PATCH", "/api/mcp_servers/text", { description: "texts" })).statusCode).toBe(200);
    const env = await as("PATCH", "/api/mcp_servers/text", { env: { NODE_OPTIONS: "--require=/tmp/x.js" } });
    expect(env.statusCode).toBe(403);
    expect(env.json().error).toMatchObject({
      code: "AccessDeniedError",
      details: { permission: "policy:write" },
    });
    expect(gw.gateway.services.fleet.require("text").spec.env).not.toHaveProperty("NODE_OPTIONS");
  });
});
