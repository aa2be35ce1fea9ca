import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { RequestContext } from "../../src/app/context.js";
import { execute } from "../../src/app/execute.js";
import { AUTH_OPERATIONS as op } from "../../src/app/operations/auth/auth-operations.js";
import type { AppServices } from "../../src/app/services.js";
import { BUILTIN_ROLES } from "../../src/domain/auth/roles.js";
import { GatewayError } from "../../src/domain/errors.js";
import { startTestGateway, type TestGateway } from "../support/gateway.js";

/** The caller every REST request of this file comes from (authentication is another layer's job). */
const caller = vi.hoisted(() => ({ current: null as RequestContext | null }));
vi.mock("../../src/edges/http/request-context.js", () => ({
  restContext: () => {
    if (!caller.current) throw new Error("no caller set");
    return caller.current;
  },
}));

const ROOT: RequestContext = {
  principal: { id: "root", type: "api_key", tenant_id: null, roles: ["admin"] },
  authenticated: true,
  channel: "rest",
};
const VIEWER: RequestContext = {
  principal: { id: "vera", type: "api_key", tenant_id: null, roles: ["viewer"] },
  authenticated: true,
  channel: "rest",
};

const GENERIC_500 = {
  error: { code: "InternalServerError", message: "An internal server error occurred.", details: null },
};
const RAW_KEY = /^mcp_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let gw: TestGateway;
let services: AppServices;

beforeAll(async () => {
  gw = await startTestGateway("mcp_servers: {}\n");
  services = gw.gateway.services;
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  caller.current = ROOT;
});

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const inject = (method: Method, url: string, payload?: unknown) =>
  gw.app.inject({
    method,
    url: `/api${url}`,
    ...(payload !== undefined && {
      payload: typeof payload === "string" ? payload : JSON.stringify(payload),
      headers: { "content-type": "application/json" },
    }),
  });

/** Runs with authentication on (the route table and authentication are not exercised here). */
function withAuth(enabled: boolean) {
  beforeAll(() => {
    services.settings.authEnabled = enabled;
  });
  afterAll(() => {
    services.settings.authEnabled = false;
  });
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function expectValidation(res: { statusCode: number; json(): unknown }, field: string, status = 422) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as {
    error: { code: string; message: string; details: { issues: { field: string }[] } };
  };
  expect(body.error.code).toBe("ValidationError");
  expect(body.error.message).toContain(`'${field}'`);
  expect(body.error.details.issues[0]?.field).toBe(field);
}

const ROUTES: [Method, string, unknown?][] = [
  ["POST", "/auth/keys", { principal_id: "alice", name: "ci" }],
  ["DELETE", "/auth/keys/k1", { reason: "x" }],
  ["GET", "/auth/keys?principal_id=alice"],
  ["GET", "/auth/roles/all"],
  ["GET", "/auth/roles"],
  ["GET", "/auth/roles/admin"],
  ["POST", "/auth/roles", { role_name: "ops", permissions: ["tool:list"] }],
  ["PATCH", "/auth/roles/ops", { description: "x" }],
  ["DELETE", "/auth/roles/ops"],
  ["POST", "/auth/roles/assign", { principal_id: "alice", role_name: "viewer", scope: "global" }],
  ["DELETE", "/auth/roles/revoke", { principal_id: "alice", role_name: "viewer", scope: "global" }],
  ["GET", "/auth/principals"],
  ["GET", "/auth/principals/roles?principal_id=alice"],
  ["GET", "/auth/permissions"],
  ["POST", "/auth/check-permission", { principal_id: "alice", permission: "tool:list" }],
  ["GET", "/auth/policies/provider/math"],
  ["POST", "/auth/policies/provider/math", { allow_list: ["*"] }],
  ["DELETE", "/auth/policies/provider/math"],
];

describe("with authentication disabled", () => {
  it.each(ROUTES)("%s %s answers 503 AuthDisabledError", async (method, url, payload) => {
    const res = await inject(method, url, payload);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe("AuthDisabledError");
    expect(res.json().error.message).toContain("auth.enabled is false");
  });

  it("answers 503 before reading a malformed or invalid body, and changes nothing", async () => {
    expect((await inject("POST", "/auth/keys", "{not json")).statusCode).toBe(503);
    expect((await inject("POST", "/auth/roles", { role_name: "!", created_by: "x" })).statusCode).toBe(503);
    expect(await services.repositories.roles.list()).toEqual([]);
    expect(await services.repositories.apiKeys.list("alice", true)).toEqual([]);
  });

  it("refuses the operations themselves, whichever edge calls them", async () => {
    await expect(execute(services, op.listPermissions, {}, ROOT)).rejects.toMatchObject({
      type: "AuthDisabledError",
      status: 503,
    });
  });
});

describe("who may manage auth", () => {
  withAuth(true);

  it("refuses an unauthenticated caller with 401", async () => {
    caller.current = {
      ...ROOT,
      principal: { ...ROOT.principal, id: "anonymous", roles: [] },
      authenticated: false,
    };
    const res = await inject("GET", "/auth/permissions");
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe("AuthenticationError");
  });

  it("refuses a principal without the admin role with 403", async () => {
    caller.current = VIEWER;
    const res = await inject("POST", "/auth/roles", { role_name: "sneaky", permissions: ["*:*"] });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: "AccessDeniedError", message: "admin role required" });
    expect(await services.repositories.roles.get("sneaky")).toBeUndefined();
  });

  it("refuses a custom role granting *:* : the admin role itself is required", async () => {
    await execute(services, op.createRole, { role_name: "everything", permissions: ["*:*"] }, ROOT);
    await execute(services, op.assignRole, { principal_id: "eve", role_name: "everything" }, ROOT);
    const eve: RequestContext = { ...VIEWER, principal: { ...VIEWER.principal, id: "eve", roles: [] } };
    await expect(execute(services, op.listPrincipals, {}, eve)).rejects.toMatchObject({
      type: "AccessDeniedError",
    });
    await execute(services, op.deleteRole, { role_name: "everything" }, ROOT);
  });

  it("lets a principal holding admin through a stored assignment in", async () => {
    await execute(services, op.assignRole, { principal_id: "ada", role_name: "admin" }, ROOT);
    const ada: RequestContext = { ...VIEWER, principal: { ...VIEWER.principal, id: "ada", roles: [] } };
    const result = await execute(services, op.listPermissions, {}, ada);
    expect(result.permissions.length).toBeGreaterThan(0);
    await execute(services, op.revokeRole, { principal_id: "ada", role_name: "admin" }, ROOT);
  });
});

describe("API keys", () => {
  withAuth(true);

  it("POST /auth/keys answers 201 with the raw key once, stored as SHA-256 only", async () => {
    const res = await inject("POST", "/auth/keys", { principal_id: "alice", name: "ci" });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ["created_by", "expires_at", "key_id", "name", "principal_id", "raw_key", "warning"].sort(),
    );
    expect(body).toMatchObject({ principal_id: "alice", name: "ci", created_by: "root", expires_at: null });
    expect(body.raw_key).toMatch(RAW_KEY);
    expect(body.warning).toMatch(/shown only once/);
    const stored = await services.repositories.apiKeys.findByHash(sha256(body.raw_key));
    expect(stored).toMatchObject({ key_id: body.key_id, principal_id: "alice", revoked: false });
    expect(JSON.stringify(stored)).not.toContain(body.raw_key.slice(4));
  });

  it("gives every key its own random value", async () => {
    const keys = await Promise.all(
      [1, 2, 3].map(async () =>
        (await inject("POST", "/auth/keys", { principal_id: "bob", name: "n" })).json(),
      ),
    );
    expect(new Set(keys.map((key) => key.raw_key)).size).toBe(3);
    expect(new Set(keys.map((key) => key.key_id)).size).toBe(3);
  });

  it("accepts expires_at in ISO 8601 and answers it in UTC", async () => {
    const res = await inject("POST", "/auth/keys", {
      principal_id: "carol",
      name: "temp",
      expires_at: "2999-01-01T02:00:00+02:00",
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().expires_at).toBe("2999-01-01T00:00:00.000Z");
  });

  it.each([
    ["not a date", "tomorrow"],
    ["an impossible date", "2999-02-30T00:00:00Z"],
    ["a number", 12345],
    ["a past time", "2001-01-01T00:00:00Z"],
  ])("refuses expires_at that is %s with 422 naming it, storing nothing", async (_label, expires_at) => {
    const res = await inject("POST", "/auth/keys", { principal_id: "dave", name: "x", expires_at });
    expectValidation(res, "expires_at");
    expect(await services.repositories.apiKeys.list("dave", true)).toEqual([]);
  });

  it.each([
    ["principal_id", { name: "x" }],
    ["name", { principal_id: "dave" }],
  ])("answers 500 to a body missing %s (spec 1), storing nothing", async (_field, body) => {
    const res = await inject("POST", "/auth/keys", body);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual(GENERIC_500);
    expect(await services.repositories.apiKeys.list("dave", true)).toEqual([]);
  });

  it("refuses a present but malformed principal_id with 422", async () => {
    expectValidation(await inject("POST", "/auth/keys", { principal_id: "", name: "x" }), "principal_id");
    expectValidation(await inject("POST", "/auth/keys", { principal_id: 7, name: "x" }), "principal_id");
  });

  it("lists a principal's keys without secrets, with total and active", async () => {
    const created = (await inject("POST", "/auth/keys", { principal_id: "erin", name: "one" })).json();
    await inject("POST", "/auth/keys", { principal_id: "erin", name: "two" });
    await inject("DELETE", `/auth/keys/${created.key_id}`, { reason: "rotated" });

    const all = await inject("GET", "/auth/keys?principal_id=erin");
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body).toMatchObject({ principal_id: "erin", total: 2, active: 1 });
    expect(Object.keys(body.keys[0]).sort()).toEqual(
      ["created_at", "expires_at", "key_id", "last_used_at", "name", "revoked"].sort(),
    );
    // Oldest first; two keys made within one millisecond may come in either order.
    const one = body.keys.find((entry: { key_id: string }) => entry.key_id === created.key_id);
    expect(one).toMatchObject({ name: "one", revoked: true, last_used_at: null });
    expect(one.created_at).toMatch(ISO);
    expect(JSON.stringify(body)).not.toContain("mcp_");

    const active = (await inject("GET", "/auth/keys?principal_id=erin&include_revoked=false")).json();
    expect(active.keys.map((key: { name: string }) => key.name)).toEqual(["two"]);
    expect(active).toMatchObject({ total: 1, active: 1 });
  });

  it("answers an empty list without principal_id", async () => {
    const res = await inject("GET", "/auth/keys");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ principal_id: null, keys: [], total: 0, active: 0 });
  });

  it("refuses include_revoked that is no boolean word with 400 invalid_query", async () => {
    for (const value of ["maybe", "2", "truthy", "nope"]) {
      const res = await inject("GET", `/auth/keys?principal_id=erin&include_revoked=${value}`);
      expect([value, res.statusCode, res.json()]).toEqual([
        value,
        400,
        { error: "invalid_query", detail: "include_revoked must be true or false (or 1/0, yes/no, on/off)" },
      ]);
    }
  });

  it("reads include_revoked in any case and as 1/0, yes/no, on/off", async () => {
    const count = async (value: string) =>
      (await inject("GET", `/auth/keys?principal_id=erin&include_revoked=${value}`)).json().total;
    const all = await count("true");
    const active = await count("false");
    for (const value of ["TRUE", "True", "1", "yes", "on"])
      expect([value, await count(value)]).toEqual([value, all]);
    for (const value of ["FALSE", "False", "0", "no", "off"])
      expect([value, await count(value)]).toEqual([value, active]);
  });

  it("DELETE /auth/keys/{key_id} revokes with the caller as actor and the reason", async () => {
    const created = (await inject("POST", "/auth/keys", { principal_id: "frank", name: "k" })).json();
    const res = await inject("DELETE", `/auth/keys/${created.key_id}`, { reason: "leaked" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      key_id: created.key_id,
      revoked: true,
      revoked_by: "root",
      reason: "leaked",
      already_revoked: false,
    });
    const stored = await services.repositories.apiKeys.get(created.key_id);
    expect(stored).toMatchObject({ revoked: true, revoked_by: "root", revoke_reason: "leaked" });

    const again = await inject("DELETE", `/auth/keys/${created.key_id}`);
    expect(again.json()).toMatchObject({ already_revoked: true, reason: "leaked" });
  });

  it("revokes without a body, the reason defaulting to empty", async () => {
    const created = (await inject("POST", "/auth/keys", { principal_id: "frank", name: "k2" })).json();
    const res = await inject("DELETE", `/auth/keys/${created.key_id}`);
    expect(res.json()).toMatchObject({ revoked: true, reason: "" });
  });

  it("answers 404 ApiKeyNotFoundError for an unknown key", async () => {
    const res = await inject("DELETE", "/auth/keys/no-such-key", {});
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("ApiKeyNotFoundError");
  });
});

describe("the actor rule", () => {
  withAuth(true);

  it.each(["created_by", "revoked_by", "assigned_by", "updated_by"])(
    "refuses %s in any change body with 422 naming it, changing nothing",
    async (field) => {
      const who = `gina-${field}`;
      const role = `actor-${field.replace("_", "-")}`;
      const key = (await inject("POST", "/auth/keys", { principal_id: who, name: "k" })).json();
      const changes: [Method, string, Record<string, unknown>][] = [
        ["POST", "/auth/keys", { principal_id: who, name: "k2" }],
        ["DELETE", `/auth/keys/${key.key_id}`, { reason: "r" }],
        ["POST", "/auth/roles", { role_name: "actor-role" }],
        ["PATCH", `/auth/roles/${role}`, { description: "changed" }],
        ["DELETE", `/auth/roles/${role}`, {}],
        ["POST", "/auth/roles/assign", { principal_id: who, role_name: "viewer" }],
        ["DELETE", "/auth/roles/revoke", { principal_id: who, role_name: "auditor" }],
        ["POST", "/auth/policies/provider/actor", { allow_list: ["a*"] }],
        ["DELETE", `/auth/policies/provider/${role}`, {}],
      ];
      await execute(services, op.createRole, { role_name: role, description: "before" }, ROOT);
      await execute(services, op.assignRole, { principal_id: who, role_name: "auditor" }, ROOT);
      await execute(services, op.setToolPolicy, { scope: "provider", target_id: role }, ROOT);

      for (const [method, url, body] of changes) {
        const res = await inject(method, url, { ...body, [field]: "someone-else" });
        expectValidation(res, field);
      }
      // Even a missing required field does not hide the actor field.
      expectValidation(await inject("POST", "/auth/keys", { [field]: null }), field);

      const repositories = services.repositories;
      expect(await repositories.apiKeys.list(who, true)).toHaveLength(1);
      expect((await repositories.apiKeys.get(key.key_id))?.revoked).toBe(false);
      expect(await repositories.roles.get("actor-role")).toBeUndefined();
      expect((await repositories.roles.get(role))?.description).toBe("before");
      expect((await repositories.roleAssignments.listByPrincipal(who)).map((a) => a.role_name)).toEqual([
        "auditor",
      ]);
      expect(await repositories.toolAccessPolicies.get("provider", "actor")).toBeUndefined();
      expect(await repositories.toolAccessPolicies.get("provider", role)).toBeDefined();

      await execute(services, op.deleteRole, { role_name: role }, ROOT);
      await execute(services, op.revokeRole, { principal_id: who, role_name: "auditor" }, ROOT);
      await execute(services, op.revokeApiKey, { key_id: key.key_id }, ROOT);
      await execute(services, op.deleteToolPolicy, { scope: "provider", target_id: role }, ROOT);
    },
  );
});

describe("roles", () => {
  withAuth(true);

  it("GET /auth/roles lists the six built-in roles with their exact grants", async () => {
    const res = await inject("GET", "/auth/roles");
    expect(res.statusCode).toBe(200);
    const { roles, total } = res.json();
    expect(total).toBe(6);
    expect(roles.map((role: { role_name: string }) => role.role_name)).toEqual(Object.keys(BUILTIN_ROLES));
    expect(roles[0]).toMatchObject({
      role_name: "admin",
      permissions: ["*:*"],
      permissions_count: 1,
      builtin: true,
    });
  });

  it("POST /auth/roles creates a custom role: 201 with permissions_count and created", async () => {
    const res = await inject("POST", "/auth/roles", {
      role_name: "operator",
      description: "Starts and stops servers",
      permissions: ["mcp_servers:lifecycle", "mcp_servers:read", "tool:invoke:math"],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      role_name: "operator",
      description: "Starts and stops servers",
      permissions_count: 3,
      created: true,
      builtin: false,
      created_by: "root",
    });
  });

  it("GET /auth/roles/all lists built-in then custom roles; include_builtin=false only custom", async () => {
    const all = (await inject("GET", "/auth/roles/all")).json();
    expect(all.roles.slice(0, 6).every((role: { builtin: boolean }) => role.builtin)).toBe(true);
    expect(all.roles.some((role: { role_name: string }) => role.role_name === "operator")).toBe(true);
    const custom = (await inject("GET", "/auth/roles/all?include_builtin=false")).json();
    expect(custom.roles.every((role: { builtin: boolean }) => !role.builtin)).toBe(true);
    expect(custom.total).toBe(custom.roles.length);
  });

  it("GET /auth/roles/{role_name} answers a role with its grants, 404 when unknown", async () => {
    const custom = await inject("GET", "/auth/roles/operator");
    expect(custom.json()).toMatchObject({ role_name: "operator", permissions_count: 3, builtin: false });
    expect(custom.json().created_at).toMatch(ISO);
    const builtin = await inject("GET", "/auth/roles/viewer");
    expect(builtin.json().permissions).toEqual(BUILTIN_ROLES.viewer?.permissions);
    const unknown = await inject("GET", "/auth/roles/nope");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("RoleNotFoundError");
  });

  it("refuses malformed permissions with 422 naming the entry, creating nothing", async () => {
    const res = await inject("POST", "/auth/roles", {
      role_name: "broken",
      permissions: ["tool:list", "no-colon"],
    });
    expectValidation(res, "permissions.1");
    expect(res.json().error.message).toContain("resource:action");
    expect(await services.repositories.roles.get("broken")).toBeUndefined();
  });

  it.each([
    ["a name with a space", "bad name"],
    ["a reserved path name", "assign"],
    ["a missing name", undefined],
  ])("refuses %s with 422", async (_label, role_name) => {
    expectValidation(await inject("POST", "/auth/roles", { role_name, permissions: [] }), "role_name");
  });

  it("refuses to create a role with a built-in name: 403 CannotModifyBuiltinRoleError", async () => {
    const res = await inject("POST", "/auth/roles", { role_name: "viewer", permissions: ["*:*"] });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe("CannotModifyBuiltinRoleError");
  });

  it("refuses a second custom role of the same name: 409 RoleAlreadyExistsError", async () => {
    const res = await inject("POST", "/auth/roles", { role_name: "operator" });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe("RoleAlreadyExistsError");
  });

  it("PATCH replaces the permission list and the description", async () => {
    const res = await inject("PATCH", "/auth/roles/operator", { permissions: ["tool:list"] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      role_name: "operator",
      permissions: ["tool:list"],
      permissions_count: 1,
      description: "Starts and stops servers",
    });
    const described = await inject("PATCH", "/auth/roles/operator", { description: "Lists tools" });
    expect(described.json()).toMatchObject({ description: "Lists tools", permissions: ["tool:list"] });
  });

  it("PATCH refuses built-in roles (403), unknown roles (404), empty and malformed changes (422)", async () => {
    const builtin = await inject("PATCH", "/auth/roles/admin", { permissions: [] });
    expect(builtin.statusCode).toBe(403);
    expect(builtin.json().error.code).toBe("CannotModifyBuiltinRoleError");
    const unknown = await inject("PATCH", "/auth/roles/nope", { description: "x" });
    expect(unknown.statusCode).toBe(404);
    expect((await inject("PATCH", "/auth/roles/operator", {})).statusCode).toBe(422);
    expectValidation(
      await inject("PATCH", "/auth/roles/operator", { permissions: ["a:b", ":x"] }),
      "permissions.1",
    );
    expect((await services.repositories.roles.get("operator"))?.permissions).toEqual(["tool:list"]);
  });

  it("DELETE answers 204 with no body and removes the role's assignments", async () => {
    await inject("POST", "/auth/roles/assign", {
      principal_id: "hank",
      role_name: "operator",
      scope: "global",
    });
    const res = await inject("DELETE", "/auth/roles/operator");
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect(await services.repositories.roles.get("operator")).toBeUndefined();
    expect(await services.repositories.roleAssignments.listByPrincipal("hank")).toEqual([]);
  });

  it("DELETE refuses a built-in role with 403 and an unknown one with 404", async () => {
    const builtin = await inject("DELETE", "/auth/roles/admin");
    expect(builtin.statusCode).toBe(403);
    expect(builtin.json().error.code).toBe("CannotModifyBuiltinRoleError");
    const unknown = await inject("DELETE", "/auth/roles/operator");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("RoleNotFoundError");
  });
});

describe("role assignments and principals", () => {
  withAuth(true);

  it("assigns a role globally with the caller as actor; again is idempotent", async () => {
    const res = await inject("POST", "/auth/roles/assign", {
      principal_id: "ivy",
      role_name: "developer",
      scope: "global",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      principal_id: "ivy",
      role_name: "developer",
      scope: "global",
      assigned: true,
      created: true,
      assigned_by: "root",
    });
    const again = await inject("POST", "/auth/roles/assign", { principal_id: "ivy", role_name: "developer" });
    expect(again.json()).toMatchObject({ created: false, scope: "global" });
  });

  it("assigns within a tenant", async () => {
    const res = await inject("POST", "/auth/roles/assign", {
      principal_id: "ivy",
      role_name: "auditor",
      scope: "tenant:acme",
    });
    expect(res.json()).toMatchObject({ scope: "tenant:acme", created: true });
  });

  it.each(["tenant:", "tenants:acme", "GLOBAL", "tenant:a b"])("refuses scope %j with 422", async (scope) => {
    expectValidation(
      await inject("POST", "/auth/roles/assign", { principal_id: "ivy", role_name: "viewer", scope }),
      "scope",
    );
  });

  it("refuses an unknown role with 404 RoleNotFoundError, assigning nothing", async () => {
    const res = await inject("POST", "/auth/roles/assign", { principal_id: "jack", role_name: "ghost" });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("RoleNotFoundError");
    expect(await services.repositories.roleAssignments.listByPrincipal("jack")).toEqual([]);
  });

  it("GET /auth/principals lists principals with their roles", async () => {
    const res = await inject("GET", "/auth/principals");
    expect(res.statusCode).toBe(200);
    const ivy = res.json().principals.find((p: { principal_id: string }) => p.principal_id === "ivy");
    expect(ivy.roles).toEqual([
      { role_name: "auditor", scope: "tenant:acme" },
      { role_name: "developer", scope: "global" },
    ]);
  });

  it("GET /auth/principals/roles filters by scope, all by default", async () => {
    const all = (await inject("GET", "/auth/principals/roles?principal_id=ivy")).json();
    expect(all).toMatchObject({ principal_id: "ivy", scope: "*", total: 2 });
    expect(all.roles[0]).toMatchObject({ assigned_by: "root" });
    const global = (await inject("GET", "/auth/principals/roles?principal_id=ivy&scope=global")).json();
    expect(global.roles.map((role: { role_name: string }) => role.role_name)).toEqual(["developer"]);
    const tenant = (await inject("GET", "/auth/principals/roles?principal_id=ivy&scope=tenant:acme")).json();
    expect(tenant.roles.map((role: { role_name: string }) => role.role_name)).toEqual(["auditor"]);
  });

  it("GET /auth/principals/roles needs principal_id and a valid scope", async () => {
    expectValidation(await inject("GET", "/auth/principals/roles"), "principal_id");
    expectValidation(
      await inject("GET", "/auth/principals/roles?principal_id=ivy&scope=everywhere"),
      "scope",
    );
  });

  it("an assignment applies to the next decision at once (the authorizer's cache is invalidated)", async () => {
    const check = async () =>
      (
        await inject("POST", "/auth/check-permission", { principal_id: "kim", permission: "audit:read" })
      ).json().allowed;
    expect(await check()).toBe(false);
    await inject("POST", "/auth/roles/assign", { principal_id: "kim", role_name: "auditor" });
    expect(await check()).toBe(true);
    await inject("DELETE", "/auth/roles/revoke", { principal_id: "kim", role_name: "auditor" });
    expect(await check()).toBe(false);
  });

  it("DELETE /auth/roles/revoke removes one assignment, with the scope in the body", async () => {
    const res = await inject("DELETE", "/auth/roles/revoke", {
      principal_id: "ivy",
      role_name: "auditor",
      scope: "tenant:acme",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      principal_id: "ivy",
      role_name: "auditor",
      scope: "tenant:acme",
      revoked: true,
    });
    const again = await inject("DELETE", "/auth/roles/revoke", {
      principal_id: "ivy",
      role_name: "auditor",
      scope: "tenant:acme",
    });
    expect(again.json().revoked).toBe(false);
    const unknown = await inject("DELETE", "/auth/roles/revoke", { principal_id: "ivy", role_name: "ghost" });
    expect(unknown.statusCode).toBe(404);
  });
});

describe("permissions", () => {
  withAuth(true);

  it("GET /auth/permissions answers the static manifest", async () => {
    const res = await inject("GET", "/auth/permissions");
    expect(res.statusCode).toBe(200);
    const { permissions } = res.json();
    expect(permissions).toContainEqual({
      resource_type: "mcp_servers",
      actions: ["read", "write", "lifecycle"],
    });
    for (const entry of permissions) {
      expect(Object.keys(entry).sort()).toEqual(["actions", "resource_type"]);
    }
  });

  it("POST /auth/check-permission answers in the permission form", async () => {
    await inject("POST", "/auth/roles/assign", { principal_id: "lee", role_name: "viewer" });
    const res = await inject("POST", "/auth/check-permission", {
      principal_id: "lee",
      permission: "group:read",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      principal_id: "lee",
      action: "read",
      resource_type: "group",
      resource_id: null,
      allowed: true,
      granted_by_role: "viewer",
    });
  });

  it("answers in the separate form, with a resource id, and denies what no role grants", async () => {
    const res = await inject("POST", "/auth/check-permission", {
      principal_id: "lee",
      action: "write",
      resource_type: "mcp_servers",
      resource_id: "math",
    });
    expect(res.json()).toEqual({
      principal_id: "lee",
      action: "write",
      resource_type: "mcp_servers",
      resource_id: "math",
      allowed: false,
      granted_by_role: null,
    });
  });

  it("does not count a grant held only at tenant scope", async () => {
    await inject("POST", "/auth/roles/assign", {
      principal_id: "mo",
      role_name: "auditor",
      scope: "tenant:acme",
    });
    const res = await inject("POST", "/auth/check-permission", {
      principal_id: "mo",
      permission: "audit:read",
    });
    expect(res.json().allowed).toBe(false);
  });

  it.each([
    ["both forms at once", { principal_id: "lee", permission: "a:b", action: "b" }, "permission"],
    ["neither form", { principal_id: "lee" }, "action"],
    ["a malformed permission", { principal_id: "lee", permission: "nocolon" }, "permission"],
    ["a malformed action", { principal_id: "lee", action: "a:b", resource_type: "tool" }, "action"],
    ["no principal", { permission: "a:b" }, "principal_id"],
  ])("refuses %s with 422", async (_label, body, field) => {
    expectValidation(await inject("POST", "/auth/check-permission", body), field);
  });
});

describe("tool access policies", () => {
  withAuth(true);

  it("GET answers found:false with empty lists when nothing is set", async () => {
    const res = await inject("GET", "/auth/policies/provider/math");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      found: false,
      scope: "provider",
      target_id: "math",
      allow_list: [],
      deny_list: [],
    });
  });

  it("POST stores the policy and answers it with set:true; GET reads it back", async () => {
    const res = await inject("POST", "/auth/policies/group/pool", {
      allow_list: ["read_*"],
      deny_list: ["read_secret"],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      scope: "group",
      target_id: "pool",
      allow_list: ["read_*"],
      deny_list: ["read_secret"],
      updated_by: "root",
      set: true,
    });
    const read = await inject("GET", "/auth/policies/group/pool");
    expect(read.json()).toEqual({
      found: true,
      scope: "group",
      target_id: "pool",
      allow_list: ["read_*"],
      deny_list: ["read_secret"],
    });
    expect(await services.repositories.toolAccessPolicies.get("group", "pool")).toMatchObject({
      updated_by: "root",
    });
  });

  it("POST replaces the whole policy; an absent list is empty", async () => {
    await inject("POST", "/auth/policies/member/m1", { allow_list: ["a"], deny_list: ["b"] });
    const res = await inject("POST", "/auth/policies/member/m1", { deny_list: ["c"] });
    expect(res.json()).toMatchObject({ allow_list: [], deny_list: ["c"] });
  });

  it("DELETE answers 204 with no body, whether or not a policy was set", async () => {
    const res = await inject("DELETE", "/auth/policies/group/pool");
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect((await inject("GET", "/auth/policies/group/pool")).json().found).toBe(false);
    expect((await inject("DELETE", "/auth/policies/group/pool")).statusCode).toBe(204);
  });

  it.each<[Method, unknown?]>([["GET"], ["POST", { allow_list: [] }], ["DELETE"]])(
    "%s with an unknown scope answers 400 ValidationError",
    async (method, payload) => {
      const res = await inject(method, "/auth/policies/tenant/math", payload);
      expectValidation(res, "scope", 400);
      expect(res.json().error.message).toContain("provider, group, member");
    },
  );

  it.each([
    ["a list that is not a list", { allow_list: "read_*" }, "allow_list"],
    ["an empty pattern", { deny_list: [""] }, "deny_list.0"],
    ["a pattern that is not a string", { allow_list: ["ok", 3] }, "allow_list.1"],
  ])("refuses %s with 422, storing nothing", async (_label, body, field) => {
    expectValidation(await inject("POST", "/auth/policies/provider/strict", body), field);
    expect(await services.repositories.toolAccessPolicies.get("provider", "strict")).toBeUndefined();
  });
});

describe("operations through execute", () => {
  withAuth(true);

  it("run every auth operation for a hand-made admin context", async () => {
    const key = await execute(services, op.createApiKey, { principal_id: "nat", name: "direct" }, ROOT);
    expect(key.raw_key).toMatch(RAW_KEY);
    const listed = await execute(services, op.listApiKeys, { principal_id: "nat" }, ROOT);
    expect(listed.total).toBe(1);
    await execute(services, op.createRole, { role_name: "direct", permissions: ["tool:list"] }, ROOT);
    await execute(services, op.updateRole, { role_name: "direct", description: "d" }, ROOT);
    expect((await execute(services, op.getRole, { role_name: "direct" }, ROOT)).description).toBe("d");
    await execute(services, op.assignRole, { principal_id: "nat", role_name: "direct" }, ROOT);
    const check = await execute(
      services,
      op.checkPermission,
      { principal_id: "nat", permission: "tool:list" },
      ROOT,
    );
    expect(check).toMatchObject({ allowed: true, granted_by_role: "direct" });
    await execute(services, op.revokeRole, { principal_id: "nat", role_name: "direct" }, ROOT);
    await execute(services, op.deleteRole, { role_name: "direct" }, ROOT);
    await execute(services, op.revokeApiKey, { key_id: key.key_id, reason: "done" }, ROOT);
    expect((await execute(services, op.listAllRoles, {}, ROOT)).total).toBeGreaterThanOrEqual(6);
  });

  it("raise GatewayErrors the REST edge maps", async () => {
    const error = await execute(services, op.deleteRole, { role_name: "admin" }, ROOT).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ type: "CannotModifyBuiltinRoleError", status: 403 });
  });
});
