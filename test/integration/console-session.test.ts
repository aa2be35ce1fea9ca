import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { ARITHMETIC, startTestGateway, type TestGateway } from "../support/gateway.js";

const SECURED = `
auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
    - {principal: vera, role: viewer}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

/** The cookie a sign-in answer sets, as a browser would send it back. */
function cookieOf(setCookie: string | string[] | undefined): string {
  const text = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  expect(text).toBeDefined();
  return String(text).split(";")[0] as string;
}

describe("the console's session", () => {
  let gw: TestGateway;
  let adminKey: string;
  let viewerKey: string;
  beforeAll(async () => {
    gw = await startTestGateway(SECURED);
    adminKey = await createApiKey(gw, "ada");
    viewerKey = await createApiKey(gw, "vera");
  });
  afterAll(async () => {
    await gw?.close();
  });

  const signIn = (apiKey: unknown) =>
    gw.app.inject({ method: "POST", url: "/api/ui/session", payload: { api_key: apiKey } });

  it("exchanges an API key for an HttpOnly, SameSite=Strict cookie that authenticates REST reads", async () => {
    const answer = await signIn(adminKey);
    expect(answer.statusCode).toBe(201);
    const setCookie = String(answer.headers["set-cookie"]);
    expect(setCookie).toMatch(
      /^airlock_session=[0-9a-f]{64}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    expect(setCookie).not.toContain(adminKey);
    const body = answer.json();
    expect(body.principal).toEqual({ id: "ada", type: "api_key", tenant_id: null });
    expect(body.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.allowed_routes).toContain("POST /mcp_servers/:id/start");
    const cookie = cookieOf(answer.headers["set-cookie"]);
    const servers = await gw.app.inject({ method: "GET", url: "/api/mcp_servers/", headers: { cookie } });
    expect(servers.statusCode).toBe(200);
    const session = await gw.app.inject({ method: "GET", url: "/api/ui/session", headers: { cookie } });
    expect(session.json()).toMatchObject({
      auth_enabled: true,
      principal: { id: "ada" },
      csrf_token: body.csrf_token,
    });
  });

  it("refuses a cookie-carried write without its CSRF token (403) and runs it with the token", async () => {
    const answer = await signIn(adminKey);
    const cookie = cookieOf(answer.headers["set-cookie"]);
    const { csrf_token } = answer.json();
    const url = "/api/mcp_servers/math/start";
    const forged = await gw.app.inject({ method: "POST", url, headers: { cookie } });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error).toBe("csrf_failed");
    const wrong = await gw.app.inject({
      method: "POST",
      url,
      headers: { cookie, "x-csrf-token": "0".repeat(64) },
    });
    expect(wrong.statusCode).toBe(403);
    const started = await gw.app.inject({
      method: "POST",
      url,
      headers: { cookie, "x-csrf-token": csrf_token },
    });
    expect(started.statusCode).toBe(200);
  });

  it("shows a viewer only the routes it may use, and the API still refuses a viewer's write", async () => {
    const answer = await signIn(viewerKey);
    const { csrf_token, allowed_routes } = answer.json();
    expect(allowed_routes).toContain("GET /mcp_servers/");
    expect(allowed_routes).not.toContain("POST /mcp_servers/:id/start");
    // Streams too: a viewer follows server logs, not the event stream (audit:read).
    expect(allowed_routes).toContain("GET /ws/providers/:provider_id/logs");
    expect(allowed_routes).not.toContain("GET /ws/events");
    expect(allowed_routes).not.toContain("DELETE /mcp_servers/:id");
    const cookie = cookieOf(answer.headers["set-cookie"]);
    const forged = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/math/stop",
      headers: { cookie, "x-csrf-token": csrf_token },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error.code).toBe("AccessDeniedError");
  });

  it("signs out: the cookie is cleared and the session no longer authenticates, on any replica's store", async () => {
    const answer = await signIn(adminKey);
    const cookie = cookieOf(answer.headers["set-cookie"]);
    const { csrf_token } = answer.json();
    const out = await gw.app.inject({
      method: "DELETE",
      url: "/api/ui/session",
      headers: { cookie, "x-csrf-token": csrf_token },
    });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toContain("airlock_session=; Path=/; Max-Age=0");
    const after = await gw.app.inject({ method: "GET", url: "/api/mcp_servers/", headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().details.auth_method).toBe("session");
  });

  it("ends the session when its API key is revoked", async () => {
    const key = await createApiKey(gw, "ada");
    const cookie = cookieOf((await signIn(key)).headers["set-cookie"]);
    const { repositories, hasher } = gw.gateway.services;
    const record = await repositories.apiKeys.findByHash(hasher.sha256Hex(key));
    await repositories.apiKeys.revoke(record!.key_id, {
      revoked_by: "test",
      reason: "rotated",
      at: Date.now() / 1000,
    });
    const after = await gw.app.inject({ method: "GET", url: "/api/ui/session", headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });

  it("refuses a bad key (401, nothing set) and a body without api_key (422 naming it)", async () => {
    const bad = await signIn("mcp_not_a_key");
    expect(bad.statusCode).toBe(401);
    expect(bad.headers["set-cookie"]).toBeUndefined();
    const missing = await gw.app.inject({ method: "POST", url: "/api/ui/session", payload: {} });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain("api_key");
  });

  it("never lets the cookie authenticate the MCP endpoint", async () => {
    const cookie = cookieOf((await signIn(adminKey)).headers["set-cookie"]);
    const answer = await gw.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { cookie, "content-type": "application/json", accept: "application/json, text/event-stream" },
      payload: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
    });
    expect(answer.statusCode).toBe(401);
  });
});

describe("the console with authentication off", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(`mcp_servers: {}\n`);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("says so (the console shows a banner) and offers every route; sign-in answers 503", async () => {
    const session = await gw.app.inject({ method: "GET", url: "/api/ui/session" });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toMatchObject({
      auth_enabled: false,
      principal: { id: "anonymous" },
      csrf_token: null,
    });
    expect(session.json().allowed_routes).toContain("DELETE /mcp_servers/:id");
    const signIn = await gw.app.inject({
      method: "POST",
      url: "/api/ui/session",
      payload: { api_key: "mcp_x" },
    });
    expect(signIn.statusCode).toBe(503);
  });
});

describe("the console switched off", () => {
  it("answers 404 at its path and for its session", async () => {
    const gw = await startTestGateway(`ui: {enabled: false}\nmcp_servers: {}\n`);
    try {
      expect((await gw.app.inject({ method: "GET", url: "/ui/" })).statusCode).toBe(404);
      expect((await gw.app.inject({ method: "GET", url: "/api/ui/session" })).statusCode).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
