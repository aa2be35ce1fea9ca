/**
 * Strict bodies on the auth management routes, with authentication on and a real admin key: a
 * field a route does not take answers 422 naming it and changes nothing (read back); the spec's
 * own shapes stay: the actor fields are refused by name, POST /auth/keys without principal_id or
 * name answers 500, and boolean query parameters take true or false only (400 invalid_query).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { expectUnknownField } from "../support/validation-errors.js";

let gw: TestGateway;
let admin: string;

beforeAll(async () => {
  gw = await startTestGateway(`
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: admin}
mcp_servers: {}
`);
  admin = await createApiKey(gw, "alice");
});
afterAll(async () => {
  await gw?.close();
});

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const send = (method: Method, url: string, payload?: object) =>
  gw.app.inject({
    method,
    url: `/api${url}`,
    headers: { "x-api-key": admin },
    ...(payload !== undefined && { payload }),
  });

const keysOf = async (principal: string) =>
  (await send("GET", `/auth/keys?principal_id=${principal}&include_revoked=true`)).json();

describe("API keys", () => {
  it("refuse an unknown field on creation and create no key", async () => {
    expectUnknownField(
      await send("POST", "/auth/keys", { principal_id: "pat", name: "k", scopes: ["x"] }),
      "scopes",
    );
    expect((await keysOf("pat")).total).toBe(0);
  });

  it("keep the spec's 500 for a missing principal_id or name, and the actor rule", async () => {
    for (const body of [{}, { name: "k" }, { principal_id: "pat" }]) {
      expect((await send("POST", "/auth/keys", body)).statusCode).toBe(500);
    }
    const actor = await send("POST", "/auth/keys", { principal_id: "pat", name: "k", created_by: "mallory" });
    expect(actor.statusCode).toBe(422);
    expect(actor.json().error.details.issues[0].field).toBe("created_by");
    const typed = await send("POST", "/auth/keys", { principal_id: 5, name: "k" });
    expect([typed.statusCode, typed.json().error.details.issues[0].field]).toEqual([422, "principal_id"]);
    expect((await keysOf("pat")).total).toBe(0);
  });

  it("refuse an unknown field on revocation and leave the key active", async () => {
    const created = (await send("POST", "/auth/keys", { principal_id: "pat", name: "k" })).json();
    expectUnknownField(
      await send("DELETE", `/auth/keys/${created.key_id}`, { reason: "r", hard: true }),
      "hard",
    );
    expectUnknownField(await send("DELETE", `/auth/keys/${created.key_id}`, { key_id: "other" }), "key_id");
    expect((await keysOf("pat")).active).toBe(1);
  });

  it("read include_revoked as a boolean word only", async () => {
    expect((await send("GET", "/auth/keys?principal_id=pat&include_revoked=False")).statusCode).toBe(200);
    const bad = await send("GET", "/auth/keys?principal_id=pat&include_revoked=maybe");
    expect([bad.statusCode, bad.json()]).toEqual([
      400,
      { error: "invalid_query", detail: "include_revoked must be true or false (or 1/0, yes/no, on/off)" },
    ]);
  });
});

describe("roles and assignments", () => {
  it("refuse an unknown field on role creation and update, and change nothing", async () => {
    expectUnknownField(
      await send("POST", "/auth/roles", {
        role_name: "ops",
        permissions: ["tool:list"],
        inherits: ["admin"],
      }),
      "inherits",
    );
    expect((await send("GET", "/auth/roles/ops")).statusCode).toBe(404);
    expect(
      (await send("POST", "/auth/roles", { role_name: "ops", permissions: ["tool:list"] })).statusCode,
    ).toBe(201);
    expectUnknownField(
      await send("PATCH", "/auth/roles/ops", { permissions: ["*:*"], role_name: "admin" }),
      "role_name",
    );
    expectUnknownField(
      await send("PATCH", "/auth/roles/ops", { permissions: ["*:*"], builtin: true }),
      "builtin",
    );
    expectUnknownField(await send("DELETE", "/auth/roles/ops", { force: true }), "force");
    expect((await send("GET", "/auth/roles/ops")).json().permissions).toEqual(["tool:list"]);
  });

  it("refuse an unknown field on assign and revoke, and change no assignment", async () => {
    const roles = async () => (await send("GET", "/auth/principals/roles?principal_id=pat")).json().total;
    expectUnknownField(
      await send("POST", "/auth/roles/assign", { principal_id: "pat", role_name: "viewer", expires: "2030" }),
      "expires",
    );
    expect(await roles()).toBe(0);
    expect(
      (await send("POST", "/auth/roles/assign", { principal_id: "pat", role_name: "viewer" })).statusCode,
    ).toBe(200);
    expectUnknownField(
      await send("DELETE", "/auth/roles/revoke", { principal_id: "pat", role_name: "viewer", cascade: true }),
      "cascade",
    );
    expect(await roles()).toBe(1);
  });

  it("read include_builtin as a boolean word only", async () => {
    const custom = (await send("GET", "/auth/roles/all?include_builtin=0")).json();
    expect(custom.roles.map((role: { role_name: string }) => role.role_name)).toEqual(["ops"]);
    const bad = await send("GET", "/auth/roles/all?include_builtin=yes-please");
    expect([bad.statusCode, bad.json()]).toEqual([
      400,
      { error: "invalid_query", detail: "include_builtin must be true or false (or 1/0, yes/no, on/off)" },
    ]);
  });

  it("refuse an unknown field on a permission check", async () => {
    expectUnknownField(
      await send("POST", "/auth/check-permission", {
        principal_id: "pat",
        permission: "tool:list",
        tenant: "t1",
      }),
      "tenant",
    );
  });
});

describe("tool access policies", () => {
  it("refuse an unknown field on set and delete, keeping the stored policy", async () => {
    expect((await send("POST", "/auth/policies/provider/math", { allow_list: ["add"] })).statusCode).toBe(
      200,
    );
    expectUnknownField(
      await send("POST", "/auth/policies/provider/math", { deny_list: ["*"], approval_list: ["add"] }),
      "approval_list",
    );
    expectUnknownField(
      await send("POST", "/auth/policies/provider/math", { target_id: "text" }),
      "target_id",
    );
    expectUnknownField(await send("DELETE", "/auth/policies/provider/math", { all: true }), "all");
    expect((await send("GET", "/auth/policies/provider/math")).json()).toEqual({
      found: true,
      scope: "provider",
      target_id: "math",
      allow_list: ["add"],
      deny_list: [],
    });
    // An unknown scope is still 400 ValidationError (spec 2 §7).
    expect((await send("POST", "/auth/policies/tenant/math", { allow_list: [] })).statusCode).toBe(400);
  });
});
