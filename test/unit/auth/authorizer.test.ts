import pino from "pino";
import { describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import { Authorizer } from "../../../src/app/auth/authorizer.js";
import type { Principal } from "../../../src/app/context.js";
import type { PolicyEngine } from "../../../src/app/ports/policy-engine.js";
import { ManualClock } from "../../support/fleet.js";

/** How long the authorizer reuses what it read (its CACHE_MS). */
const READ_REUSE_MS = 5_000;

const bob: Principal = { id: "bob", type: "api_key", tenant_id: null, roles: [] };
const carol: Principal = { id: "carol", type: "jwt", tenant_id: null, roles: ["admin"] };

function setup(policyEngine: PolicyEngine | null = null) {
  const clock = new ManualClock();
  const repositories = memoryRepositories();
  const authorizer = new Authorizer({
    repositories,
    staticAssignments: [{ principal: "bob", role: "viewer", scope: "global" }],
    policyEngine,
    clock,
    logger: pino({ level: "silent" }),
  });
  return { clock, repositories, authorizer };
}

const read = { tenantAware: false };

describe("the authorizer's answers from memory", () => {
  it("decides at once, without a promise, once a principal's roles were read, and reads again when they age", async () => {
    const { clock, authorizer } = setup();
    const first = authorizer.decide(bob, ["mcp_servers:read"], read);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).allowed).toBe(true);
    const held = authorizer.decide(bob, ["mcp_servers:read"], read);
    expect(held).not.toBeInstanceOf(Promise);
    expect(held).toMatchObject({ allowed: true, granted_by_role: "viewer" });
    expect(authorizer.decide(bob, ["mcp_servers:write"], read)).toMatchObject({ allowed: false });
    expect(authorizer.isAdmin(bob)).toBe(false);
    clock.advance(READ_REUSE_MS);
    const aged = authorizer.decide(bob, ["mcp_servers:read"], read);
    expect(aged).toBeInstanceOf(Promise);
    expect((await aged).allowed).toBe(true);
  });

  it("reads again after a change made through it (invalidate), and sees the change", async () => {
    const { authorizer, repositories } = setup();
    expect(await authorizer.isAdmin(bob)).toBe(false);
    expect(authorizer.isAdmin(bob)).toBe(false);
    await repositories.roleAssignments.assign({
      principal_id: "bob",
      role_name: "admin",
      scope: "global",
      assigned_by: "test",
      assigned_at: 0,
    });
    authorizer.invalidate();
    const fresh = authorizer.isAdmin(bob);
    expect(fresh).toBeInstanceOf(Promise);
    expect(await fresh).toBe(true);
    expect(authorizer.isAdmin(bob)).toBe(true);
  });

  it("keeps roles declared with the identity apart from another principal's", async () => {
    const { authorizer } = setup();
    expect(await authorizer.isAdmin(carol)).toBe(true);
    expect(await authorizer.isAdmin(bob)).toBe(false);
    expect(authorizer.isAdmin(carol)).toBe(true);
  });

  it("asks the policy engine, through a promise, for every allowed decision; a refusal by roles needs no engine", async () => {
    const asked: string[] = [];
    const engine: PolicyEngine = {
      allows: async (input) => {
        asked.push(input.permission);
        return input.action === "read";
      },
    };
    const { authorizer } = setup(engine);
    expect((await authorizer.decide(bob, ["mcp_servers:read"], read)).allowed).toBe(true);
    const again = authorizer.decide(bob, ["mcp_servers:read"], read);
    expect(again).toBeInstanceOf(Promise);
    expect((await again).allowed).toBe(true);
    expect(authorizer.decide(bob, ["mcp_servers:write"], read)).toMatchObject({ allowed: false });
    expect(asked).toEqual(["mcp_servers:read", "mcp_servers:read"]);
  });
});
