import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bodyText,
  expectNoStackText,
  type FieldShapes,
  FLEET_WITH_GROUP,
  FUZZ_RUNS,
  type FuzzTarget,
  hostileString,
  queryValue,
  startFuzzTarget,
} from "../support/fuzz.js";
import { ARITHMETIC } from "../support/gateway.js";

/**
 * Every REST route with hostile bodies, queries and path parameters, as an admin (so that every
 * route runs past authorization): no 5xx but the one the spec names (POST /auth/keys missing a
 * field), no internal text in any answer, and a refused request changes nothing (read back).
 */

let target: FuzzTarget;
let gw: FuzzTarget["gw"];
let adminKey: string;

const id = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("math", "rest1", "g1") },
  { weight: 1, arbitrary: fc.constant("nope") },
  // A path can only carry well-formed text: a lone surrogate has no percent-encoding.
  { weight: 1, arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 300 && encodable(s)) },
);
const segment = (value: string) => encodeURIComponent(value);

function encodable(value: string): boolean {
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}
const bool = fc.boolean();
const small = fc.integer({ min: -5, max: 200 });
const strings = fc.array(fc.oneof(fc.constantFrom("*", "add", "echo*"), hostileString), { maxLength: 3 });

interface RouteCase {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path under /api with `{}` where a fuzzed id goes. */
  path: string;
  fields?: FieldShapes;
  query?: readonly string[];
}

const SERVER_FIELDS: FieldShapes = {
  mcp_server_id: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/), hostileString),
  mode: fc.constantFrom("subprocess", "docker", "remote", "group", "container", "x"),
  command: fc.oneof(fc.constant(["node", ARITHMETIC]), fc.array(hostileString, { maxLength: 2 })),
  image: fc.constantFrom("alpine:3", ""),
  endpoint: fc.constantFrom("http://127.0.0.1:1/mcp", "https://example.com/mcp", "ftp://x", "not a url"),
  env: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,6}$/), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
  idle_ttl_s: small,
  health_check_interval_s: small,
  description: hostileString,
  volumes: strings,
  network: fc.constantFrom("none", "host"),
  read_only: bool,
  source: hostileString,
};
const POLICY_RULES = fc.record(
  { allow: strings, deny: strings, requireApproval: strings },
  { requiredKeys: [] },
);

const ROUTES: RouteCase[] = [
  { method: "GET", path: "/mcp_servers/", query: ["state"] },
  { method: "POST", path: "/mcp_servers/", fields: SERVER_FIELDS },
  { method: "GET", path: "/mcp_servers/{}" },
  {
    method: "PATCH",
    path: "/mcp_servers/{}",
    fields: {
      description: hostileString,
      env: SERVER_FIELDS.env!,
      idle_ttl_s: small,
      health_check_interval_s: small,
    },
  },
  { method: "PUT", path: "/mcp_servers/{}", fields: { description: hostileString, idle_ttl_s: small } },
  { method: "DELETE", path: "/mcp_servers/{}" },
  { method: "POST", path: "/mcp_servers/{}/stop", fields: { reason: hostileString } },
  { method: "GET", path: "/mcp_servers/{}/tools" },
  { method: "GET", path: "/mcp_servers/{}/tools/history", query: ["limit", "from_position"] },
  { method: "GET", path: "/mcp_servers/{}/health" },
  { method: "GET", path: "/mcp_servers/{}/logs", query: ["lines"] },
  { method: "GET", path: "/mcp_servers/{}/l7_policy" },
  {
    method: "POST",
    path: "/mcp_servers/{}/l7_policy",
    fields: {
      tools: POLICY_RULES,
      headers: POLICY_RULES,
      arguments: fc.record(
        { secretPatterns: strings, maxPayloadBytes: fc.integer({ min: -1, max: 10_000 }) },
        { requiredKeys: [] },
      ),
      defaultAction: fc.constantFrom("Allow", "Deny", "allow", "x"),
      mode: fc.constantFrom("Audit", "Enforce", "x"),
    },
  },
  { method: "DELETE", path: "/mcp_servers/{}/l7_policy" },
  { method: "GET", path: "/groups/" },
  {
    method: "POST",
    path: "/groups/",
    fields: {
      group_id: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/), hostileString),
      strategy: fc.constantFrom("round_robin", "priority", "random", "x"),
      min_healthy: small,
      description: hostileString,
      members: fc.array(fc.oneof(fc.constant("math"), fc.integer()), { maxLength: 2 }),
    },
  },
  { method: "GET", path: "/groups/{}" },
  {
    method: "PUT",
    path: "/groups/{}",
    fields: { strategy: fc.constantFrom("round_robin", "x"), min_healthy: small, description: hostileString },
  },
  { method: "POST", path: "/groups/{}/rebalance" },
  {
    method: "POST",
    path: "/groups/{}/members",
    fields: {
      member_id: fc.oneof(fc.constantFrom("math", "text"), hostileString),
      weight: small,
      priority: small,
    },
  },
  { method: "DELETE", path: "/groups/g1/members/{}" },
  { method: "GET", path: "/discovery/sources" },
  {
    method: "POST",
    path: "/discovery/sources",
    fields: {
      source_type: fc.constantFrom("docker", "filesystem", "kubernetes", "entrypoint", "x"),
      mode: fc.constantFrom("additive", "authoritative", "x"),
      enabled: bool,
      config: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
    },
  },
  {
    method: "PUT",
    path: "/discovery/sources/{}",
    fields: { mode: fc.constantFrom("additive", "x"), enabled: bool },
  },
  { method: "PUT", path: "/discovery/sources/{}/enable", fields: { enabled: bool } },
  { method: "POST", path: "/discovery/sources/{}/scan" },
  { method: "DELETE", path: "/discovery/sources/{}" },
  { method: "POST", path: "/discovery/approve/{}" },
  { method: "POST", path: "/discovery/reject/{}" },
  { method: "GET", path: "/config/" },
  { method: "GET", path: "/config/diff" },
  { method: "POST", path: "/config/export" },
  { method: "POST", path: "/config/reload", fields: { graceful: bool } },
  { method: "GET", path: "/tools/" },
  { method: "GET", path: "/system/" },
  { method: "GET", path: "/system/me" },
  { method: "POST", path: "/sessions/{}/suspend", fields: { reason: hostileString } },
  { method: "DELETE", path: "/sessions/{}/suspend" },
  {
    method: "POST",
    path: "/agent/policy",
    fields: {
      tool_policies: fc.array(
        fc.record(
          {
            mcp_server_id: fc.constantFrom("*", "math", "nope"),
            action: fc.constantFrom("allow", "deny", "require-approval", "audit", "x"),
            tool_name: fc.constantFrom("add", "*"),
            approval_timeout_seconds: small,
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
      version: small,
    },
  },
  { method: "POST", path: "/admin/tools/math/{}/withdraw", fields: { tenant_id: fc.option(hostileString) } },
  { method: "POST", path: "/admin/tools/math/{}/restore", fields: { tenant_id: fc.option(hostileString) } },
  { method: "GET", path: "/approvals", query: ["state", "provider_id"] },
  { method: "GET", path: "/approvals/{}" },
  {
    method: "POST",
    path: "/approvals/{}/resolve",
    fields: { decision: fc.constantFrom("approve", "deny", "x"), reason: hostileString },
  },
  {
    method: "POST",
    path: "/auth/keys",
    fields: {
      principal_id: fc.oneof(fc.constant("fuzzed"), hostileString),
      name: hostileString,
      expires_at: fc.oneof(fc.constant("2099-01-01T00:00:00Z"), hostileString),
    },
  },
  { method: "GET", path: "/auth/keys", query: ["principal_id", "include_revoked"] },
  { method: "DELETE", path: "/auth/keys/{}", fields: { reason: hostileString } },
  { method: "GET", path: "/auth/roles" },
  { method: "GET", path: "/auth/roles/all", query: ["include_builtin"] },
  { method: "GET", path: "/auth/roles/{}" },
  {
    method: "POST",
    path: "/auth/roles",
    fields: {
      role_name: fc.oneof(fc.stringMatching(/^[a-z][a-z-]{0,10}$/), hostileString),
      description: hostileString,
      permissions: fc.array(
        fc.oneof(fc.constantFrom("tool:invoke", "*:*", "mcp_servers:read"), hostileString),
        {
          maxLength: 3,
        },
      ),
    },
  },
  {
    method: "PATCH",
    path: "/auth/roles/{}",
    fields: {
      description: hostileString,
      permissions: fc.array(fc.constantFrom("tool:invoke", "x"), { maxLength: 2 }),
    },
  },
  { method: "DELETE", path: "/auth/roles/{}" },
  {
    method: "POST",
    path: "/auth/roles/assign",
    fields: {
      principal_id: hostileString,
      role_name: fc.constantFrom("viewer", "admin", "nope"),
      scope: fc.constantFrom("global", "tenant:t1", "tenant:", "x"),
    },
  },
  {
    method: "DELETE",
    path: "/auth/roles/revoke",
    fields: {
      principal_id: hostileString,
      role_name: fc.constantFrom("viewer", "admin"),
      scope: fc.constantFrom("global", "x"),
    },
  },
  { method: "GET", path: "/auth/principals" },
  { method: "GET", path: "/auth/principals/roles", query: ["principal_id", "scope"] },
  { method: "GET", path: "/auth/permissions" },
  {
    method: "POST",
    path: "/auth/check-permission",
    fields: {
      principal_id: hostileString,
      permission: fc.constantFrom("tool:invoke", "x", "a:b:c:d"),
      action: hostileString,
      resource_type: hostileString,
      resource_id: hostileString,
    },
  },
  { method: "GET", path: "/auth/policies/{}/math" },
  { method: "POST", path: "/auth/policies/provider/{}", fields: { allow_list: strings, deny_list: strings } },
  { method: "DELETE", path: "/auth/policies/provider/{}" },
];

/** What the gateway holds that a request could change, read back through the API as an admin. */
async function snapshot(): Promise<unknown> {
  const { read } = target;
  const keys = JSON.parse((await read("GET", "/auth/keys?principal_id=fuzzed")).body) as {
    keys?: { key_id: string; revoked: boolean }[];
  };
  return {
    config: await read("POST", "/config/export"),
    servers: await target.serverIds(),
    groups: await read("GET", "/groups/g1"),
    roles: await read("GET", "/auth/roles/all"),
    principals: await read("GET", "/auth/principals"),
    keys: (keys.keys ?? []).map((key) => [key.key_id, key.revoked]),
    l7: await read("GET", "/mcp_servers/math/l7_policy"),
    policies: await read("GET", "/auth/policies/provider/math"),
    sources: await read("GET", "/discovery/sources"),
    approvals: await read("GET", "/approvals?state=pending"),
  };
}

/** Spec 2 §7: "A handler that subscripts its body directly (POST /auth/keys) answers 500 on a missing field". */
function specifiedServerError(route: RouteCase, body: string): boolean {
  if (route.method !== "POST" || route.path !== "/auth/keys") return false;
  try {
    // An empty body reads as `{}`.
    const parsed = (body.trim() === "" ? {} : JSON.parse(body)) as Record<string, unknown> | null;
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      (parsed.principal_id === undefined || parsed.name === undefined)
    );
  } catch {
    return false;
  }
}

/** Top-level fields of an object body that the route does not take (the spec says which it takes). */
function unknownFields(route: RouteCase, body: string): string[] {
  if (route.method === "GET") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return [];
  return Object.keys(parsed).filter((key) => !Object.hasOwn(route.fields ?? {}, key));
}

beforeAll(async () => {
  target = await startFuzzTarget(FLEET_WITH_GROUP);
  ({ gw, adminKey } = target);
  // A server registered through REST: the routes that refuse a declared one (update, delete) act on it.
  const registered = await gw.app.inject({
    method: "POST",
    url: "/api/mcp_servers/",
    headers: { "x-api-key": adminKey },
    payload: { mcp_server_id: "rest1", mode: "subprocess", command: ["node", ARITHMETIC] },
  });
  expect(registered.statusCode).toBe(201);
});

afterAll(async () => {
  await gw?.close();
});

describe("REST routes under hostile input", () => {
  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: no 5xx, no internal text, a refusal changes nothing",
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(
          id,
          bodyText(route.fields ?? {}),
          fc.dictionary(fc.constantFrom(...(route.query ?? ["x"])), queryValue, { maxKeys: 2 }),
          async (pathId, body, query) => {
            const search = new URLSearchParams(route.query ? query : {}).toString();
            const url = `/api${route.path.replace("{}", segment(pathId))}${search ? `?${search}` : ""}`;
            const withBody = route.method !== "GET";
            const before = await snapshot();
            const response = await gw.app.inject({
              method: route.method,
              url,
              headers: { "x-api-key": adminKey, ...(withBody && { "content-type": "application/json" }) },
              ...(withBody && { payload: body }),
            });
            const where = `${route.method} ${url} ${body.slice(0, 200)}`;
            expectNoStackText(response.body, where);
            if (response.statusCode >= 500 && !specifiedServerError(route, body)) {
              expect.fail(`${where}: answered ${response.statusCode} ${response.body.slice(0, 300)}`);
            }
            const unknown = unknownFields(route, body);
            if (unknown.length > 0 && response.statusCode < 300) {
              expect.fail(`${where}: accepted field(s) it does not take: ${unknown.join(", ")}`);
            }
            if (response.statusCode >= 400) {
              expect(
                await snapshot(),
                `${where}: refused with ${response.statusCode} yet changed state`,
              ).toEqual(before);
            }
          },
        ),
        { numRuns: FUZZ_RUNS, endOnFailure: true },
      );
    },
  );
});
