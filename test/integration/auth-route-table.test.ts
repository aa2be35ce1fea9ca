import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BINDINGS, ROUTE_ONLY } from "../../src/app/rest-routes.js";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";

/**
 * Every `/api` route the catalog names with what it needs: its operation's permissions (the
 * `/auth` routes, admin-only, have tests of their own), and the WebSocket streams' entries.
 */
const ROUTE_PERMISSIONS = [
  ...REST_BINDINGS.filter((binding) => !binding.operation.adminOnly && !binding.deniedWithAuth).map(
    ({ method, path, operation }) => ({
      method,
      path,
      requirement:
        operation.permissions.length > 0
          ? { kind: "permissions" as const, permissions: operation.permissions }
          : { kind: "authenticated" as const },
    }),
  ),
  ...[ROUTE_ONLY.eventStream, ROUTE_ONLY.stateStream].map((rule, index) => ({
    method: "GET",
    path: index === 0 ? "/ws/events" : "/ws/state",
    requirement: { kind: "permissions" as const, permissions: rule.permissions },
  })),
];

let gw: TestGateway;
const keys: Record<string, string> = {};

const keyFor = (principal: string, tenant: string | null = null) => createApiKey(gw, principal, { tenant });

/** A concrete path for a route pattern: parameters filled with values the fleet has. */
const concrete = (path: string) =>
  path
    .replace(":id", "math")
    .replace(":server", "math")
    .replace(":tool", "add")
    .replace(":member", "math")
    .replace(":session_id", "s1")
    .replace(":name", "x");

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: dave, role: developer, scope: "tenant:t1"}
    - {principal: frank, role: developer, scope: "tenant:t2"}
    - {principal: gina, role: developer}
${fleetYaml()}`);
  keys.nobody = await keyFor("nobody");
  keys.dave = await keyFor("dave", "t1");
  keys.frank = await keyFor("frank", "t2");
  keys.gina = await keyFor("gina", "t1");
});
afterAll(async () => {
  await gw?.close();
});

describe("the route table, route by route", () => {
  const served = () =>
    ROUTE_PERMISSIONS.filter(
      // The WebSockets' handshake authorizes itself (test/integration/auth-api-keys.test.ts).
      (route) =>
        !route.path.startsWith("/ws/") &&
        gw.app.hasRoute({ method: route.method as "GET", url: `/api${route.path}` }),
    );

  it("serves most of the table's routes (the rest arrive with their features)", () => {
    expect(served().length).toBeGreaterThan(20);
  });

  it("refuses each route to a principal without its permissions, and passes it for one holding exactly them", async () => {
    const { repositories, authorizer } = gw.gateway.services;
    for (const [index, route] of served().entries()) {
      const url = `/api${concrete(route.path)}`;
      const refused = await gw.app.inject({
        method: route.method as "GET",
        url,
        headers: { "x-api-key": keys.nobody },
      });
      if (route.requirement.kind === "permissions") {
        expect([route.method, route.path, refused.statusCode]).toEqual([route.method, route.path, 403]);
        // A custom role granting exactly what the route needs, assigned to a fresh principal.
        const principal = `holder-${index}`;
        await repositories.roles.create({
          role_name: `only-${index}`,
          description: "",
          permissions: [...route.requirement.permissions],
          created_at: Date.now() / 1000,
          created_by: "test",
        });
        await repositories.roleAssignments.assign({
          principal_id: principal,
          role_name: `only-${index}`,
          scope: "global",
          assigned_by: "test",
          assigned_at: Date.now() / 1000,
        });
        authorizer.invalidate();
        const key = await keyFor(principal);
        const passed = await gw.app.inject({
          method: route.method as "GET",
          url,
          headers: { "x-api-key": key },
        });
        expect([route.method, route.path, passed.statusCode === 403 || passed.statusCode === 401]).toEqual([
          route.method,
          route.path,
          false,
        ]);
      } else {
        expect([route.method, route.path, refused.statusCode === 403 || refused.statusCode === 401]).toEqual([
          route.method,
          route.path,
          false,
        ]);
      }
    }
  });
});

describe("tenant confinement", () => {
  it("shows a tenant-scoped reader only its tenant's tool history", async () => {
    const call = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/text/start",
      headers: { "x-api-key": keys.gina },
    });
    expect(call.statusCode).toBe(200);
    const { invoker, fleet } = gw.gateway.services;
    await invoker.call(
      fleet.require("text"),
      "reverse",
      { text: "abc" },
      {
        callId: "t1-call",
        timeoutMs: 10_000,
        caller: { id: "gina", tenant_id: "t1" },
      },
    );
    const history = (key: string) =>
      gw.app.inject({
        method: "GET",
        url: "/api/mcp_servers/text/tools/history",
        headers: { "x-api-key": key },
      });
    const own = await history(keys.dave as string);
    expect(own.statusCode).toBe(200);
    expect(own.json().history.map((h: { call_id: string }) => h.call_id)).toContain("t1-call");
    const other = await history(keys.frank as string);
    expect(other.statusCode).toBe(200);
    expect(other.json().history).toEqual([]);
  });
});

describe("routes the table names by their GET or collection path", () => {
  it("authenticates HEAD routes and the collection redirects like the others, and leaves the probes open", async () => {
    const anonymous = [
      ["HEAD", "/api/system/"],
      ["GET", "/api/system"],
      ["POST", "/api/mcp_servers"],
      ["HEAD", "/api/mcp_servers/math"],
    ] as const;
    for (const [method, url] of anonymous) {
      const response = await gw.app.inject({ method, url });
      expect([method, url, response.statusCode]).toEqual([method, url, 401]);
    }
    const head = await gw.app.inject({
      method: "HEAD",
      url: "/api/system/",
      headers: { "x-api-key": keys.nobody },
    });
    expect(head.statusCode).toBe(200);
    const redirect = await gw.app.inject({
      method: "GET",
      url: "/api/system",
      headers: { "x-api-key": keys.nobody },
    });
    expect(redirect.statusCode).toBe(307);
    const denied = await gw.app.inject({
      method: "HEAD",
      url: "/api/mcp_servers/math",
      headers: { "x-api-key": keys.nobody },
    });
    expect(denied.statusCode).toBe(403);
    for (const url of ["/api/health/live", "/health/live"]) {
      expect([url, (await gw.app.inject({ method: "GET", url })).statusCode]).toEqual([url, 200]);
    }
  });
});
