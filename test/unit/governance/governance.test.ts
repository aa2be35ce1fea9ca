import { describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import type { RequestContext } from "../../../src/app/context.js";
import type { ManagedServer } from "../../../src/app/fleet/managed-server.js";
import {
  Governance,
  type GovernanceSettings,
  NO_GOVERNANCE_SETTINGS,
  SHARED_RECORDS_MAX_AGE_MS,
} from "../../../src/app/governance/governance.js";
import { payloadSizeGate } from "../../../src/app/governance/payload-size-gate.js";
import { SharedReader } from "../../../src/app/governance/shared-reader.js";
import { suspendedSessionGate } from "../../../src/app/governance/suspended-session-gate.js";
import { withdrawnToolGate } from "../../../src/app/governance/withdrawn-tool-gate.js";
import type { GatedCall } from "../../../src/app/routing/call-gate.js";
import { GatewayError } from "../../../src/domain/errors.js";
import type { AgentPolicyEntry } from "../../../src/domain/policy/agent-policy.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function manualClock() {
  const clock = { t: 0, now: () => clock.t, monotonic: () => clock.t };
  return clock;
}

const policy = (allow: string[], deny: string[] = [], approval: string[] = []) => ({
  allow_list: allow,
  deny_list: deny,
  approval_list: approval,
});

function governance(settings: Partial<GovernanceSettings> = {}) {
  const repositories = memoryRepositories();
  const clock = manualClock();
  const gov = new Governance(
    { ...NO_GOVERNANCE_SETTINGS, ...settings },
    { repositories, clock, logger: silent },
  );
  return { gov, repositories, clock };
}

function call(
  overrides: Partial<GatedCall> & { tenant?: string | null; sessionId?: string } = {},
): GatedCall {
  const ctx: RequestContext = {
    principal: { id: "p", type: "api_key", tenant_id: overrides.tenant ?? null, roles: [] },
    authenticated: true,
    channel: "mcp-http",
    ...(overrides.sessionId !== undefined && { sessionId: overrides.sessionId }),
  };
  return {
    ctx,
    target: "math",
    group: null,
    server: { id: "math" } as ManagedServer,
    tool: "add",
    args: {},
    callId: "c1",
    ...overrides,
  };
}

async function refusal(promise: Promise<void>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    return error instanceof GatewayError ? error.type : String(error);
  }
}

const withdrawal = (mcp_server_id: string, tool_name: string, tenant_id: string | null) => ({
  mcp_server_id,
  tool_name,
  tenant_id,
  withdrawn_by: "admin",
  withdrawn_at: 100,
});

describe("runtime withdrawals", () => {
  it("withdraw for one tenant, for every tenant, and restore tenant by tenant or all at once", async () => {
    const { gov, repositories } = governance();
    const w = gov.withdrawals;
    await w.withdraw(withdrawal("math", "add", "t1"));
    expect(w.isWithdrawn("math", "add", "t1")).toBe(true);
    expect(w.isWithdrawn("math", "add", "t2")).toBe(false);
    expect(w.isWithdrawn("math", "add", null)).toBe(false);
    await w.withdraw(withdrawal("math", "add", null));
    expect(w.isWithdrawn("math", "add", "t2")).toBe(true);
    expect(w.isWithdrawn("math", "add", null)).toBe(true);
    expect(await repositories.toolWithdrawals.list()).toHaveLength(2);
    // Restoring one tenant does not lift the withdrawal for every tenant.
    expect(await w.restore("math", "add", "t1")).toBe(true);
    expect(w.isWithdrawn("math", "add", "t1")).toBe(true);
    expect(await w.restore("math", "add", null)).toBe(true);
    expect(w.isWithdrawn("math", "add", "t1")).toBe(false);
    expect(w.empty).toBe(true);
    expect(await w.restore("math", "add", null)).toBe(false);
    expect(await repositories.toolWithdrawals.list()).toEqual([]);
  });

  it("reads withdrawals another replica wrote at start and again once the copy is old", async () => {
    const { gov, repositories, clock } = governance();
    await repositories.toolWithdrawals.withdraw(withdrawal("math", "add", null));
    await gov.load();
    expect(gov.withdrawals.isWithdrawn("math", "add", "t1")).toBe(true);
    await repositories.toolWithdrawals.restore("math", "add", null);
    await repositories.toolWithdrawals.withdraw(withdrawal("math", "sub", "t1"));
    await gov.fresh();
    expect(gov.withdrawals.isWithdrawn("math", "add", "t1")).toBe(true);
    clock.t += SHARED_RECORDS_MAX_AGE_MS;
    await gov.fresh();
    expect(gov.withdrawals.isWithdrawn("math", "add", "t1")).toBe(false);
    expect(gov.withdrawals.isWithdrawn("math", "sub", "t1")).toBe(true);
  });

  it("changes nothing when the store refuses the write, of a withdrawal or of a restore", async () => {
    const { gov, repositories } = governance();
    const refuse = async () => {
      throw new Error("database is locked");
    };
    const { withdraw } = repositories.toolWithdrawals;
    repositories.toolWithdrawals.withdraw = refuse;
    await expect(gov.withdrawals.withdraw(withdrawal("math", "add", null))).rejects.toThrow("locked");
    expect(gov.withdrawals.isWithdrawn("math", "add", null)).toBe(false);
    repositories.toolWithdrawals.withdraw = withdraw;
    await gov.withdrawals.withdraw(withdrawal("math", "add", null));
    repositories.toolWithdrawals.restore = refuse;
    await expect(gov.withdrawals.restore("math", "add", null)).rejects.toThrow("locked");
    expect(gov.withdrawals.isWithdrawn("math", "add", null)).toBe(true);
  });

  it("refuses a withdrawn tool on the named target or on the member the call reaches", async () => {
    const w = governance().gov.withdrawals;
    const gate = withdrawnToolGate(w);
    expect(await refusal(gate.check(call()))).toBeNull();
    await w.withdraw(withdrawal("m1", "add", "t1"));
    const viaGroup = { target: "pool", group: "pool", server: { id: "m1" } as ManagedServer };
    expect(await refusal(gate.check(call({ ...viaGroup, tenant: "t1" })))).toBe("ToolWithdrawnError");
    expect(await refusal(gate.check(call({ ...viaGroup, tenant: "t2" })))).toBeNull();
    await w.withdraw(withdrawal("pool", "add", null));
    expect(await refusal(gate.check(call({ ...viaGroup, tenant: "t2" })))).toBe("ToolWithdrawnError");
  });
});

describe("the payload_size validator", () => {
  const limit = (max_bytes: number) => payloadSizeGate(() => [{ type: "payload_size", max_bytes }]);
  const args = { message: "x".repeat(10) };
  const size = JSON.stringify(args).length;

  it("passes a payload of exactly the limit and denies one byte more", async () => {
    expect(await refusal(limit(size).check(call({ args })))).toBeNull();
    expect(await refusal(limit(size - 1).check(call({ args })))).toBe("ValidatorDenied");
  });

  it("fails closed when the payload cannot be measured", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(await refusal(limit(1_000_000).check(call({ args: cycle })))).toBe("ValidatorDenied");
  });

  it("checks nothing without validators", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(await refusal(payloadSizeGate(() => []).check(call({ args: cycle })))).toBeNull();
  });
});

describe("suspended sessions", () => {
  it("refuses the calls of a suspended session until it is resumed, and passes calls outside a session", async () => {
    const { gov } = governance();
    const gate = suspendedSessionGate(gov.sessions);
    const record = { session_id: "s1", reason: "", suspended_by: "admin", replica: "r", suspended_at: 0 };
    await gov.sessions.suspend(record);
    expect(await refusal(gate.check(call({ sessionId: "s1" })))).toBe("SessionSuspendedError");
    expect(await refusal(gate.check(call({ sessionId: "s2" })))).toBeNull();
    expect(await refusal(gate.check(call()))).toBeNull();
    expect(await gov.sessions.resume("s1")).toBe(true);
    expect(await refusal(gate.check(call({ sessionId: "s1" })))).toBeNull();
  });

  it("learns of another replica's suspension once its copy is older than the refresh age", async () => {
    const { gov, repositories, clock } = governance();
    await gov.load();
    const gate = suspendedSessionGate(gov.sessions);
    await repositories.suspendedSessions.suspend({
      session_id: "s9",
      reason: "",
      suspended_by: "admin",
      replica: "other",
      suspended_at: 0,
    });
    expect(await refusal(gate.check(call({ sessionId: "s9" })))).toBeNull();
    clock.t += 2_001;
    expect(await refusal(gate.check(call({ sessionId: "s9" })))).toBe("SessionSuspendedError");
  });
});

describe("the policies over a call", () => {
  it("add the tenant's global and per-server policies only for a caller of that tenant", () => {
    const { gov } = governance({
      tenants: new Map([["t1", policy([], ["add"])]]),
      serverTenants: new Map([["math", new Map([["t2", policy(["sub"])]])]]),
    });
    expect(gov.policiesOver("math", [], null)).toEqual([]);
    expect(gov.policiesOver("math", [], "t1")).toEqual([policy([], ["add"])]);
    expect(gov.policiesOver("math", [], "t2")).toEqual([policy(["sub"])]);
    expect(gov.policiesOver("text", [], "t2")).toEqual([]);
    expect(gov.hasTenantPolicies("t2")).toBe(true);
    expect(gov.hasTenantPolicies("t3")).toBe(false);
  });

  it("add stored policies by scope: provider, group, member of a group, member of any group", async () => {
    const { gov, repositories } = governance();
    const set = (scope: "provider" | "group" | "member", target_id: string, deny: string) =>
      repositories.toolAccessPolicies.set({
        scope,
        target_id,
        allow_list: [],
        deny_list: [deny],
        updated_at: 0,
        updated_by: "admin",
      });
    await set("provider", "m1", "a");
    await set("group", "pool", "b");
    await set("member", "pool:m1", "c");
    await set("member", "m1", "d");
    await set("member", "other:m1", "e");
    await gov.stored.reload();
    const denied = (groups: string[]) => gov.policiesOver("m1", groups, null).flatMap((p) => p.deny_list);
    expect(denied([])).toEqual(["a"]);
    expect(denied(["pool"]).sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("add the agent-pushed policy of the server, its groups and of every server, and refuse an older version", async () => {
    const { gov } = governance();
    const push = (tool_policies: AgentPolicyEntry[], version: number) =>
      gov.agent.replace({ version, tool_policies, pushed_by: "agent", pushed_at: 1 });
    expect(await push([{ mcp_server_id: "*", action: "deny", tool_name: "x" }], 3)).toEqual({
      applied: true,
      version: 3,
    });
    expect(await push([], 2)).toEqual({ applied: false, version: 3 });
    expect(gov.policiesOver("math", [], null)).toEqual([policy([], ["x"])]);
    expect(await push([{ mcp_server_id: "pool", action: "deny", tool_name: "y" }], 3)).toEqual({
      applied: true,
      version: 3,
    });
    expect(gov.policiesOver("math", [], null)).toEqual([]);
    expect(gov.policiesOver("math", ["pool"], null)).toEqual([policy([], ["y"])]);
  });

  it("keep the agent policy in force when the store refuses a push", async () => {
    const { gov, repositories } = governance();
    await gov.agent.replace({ version: 1, tool_policies: [], pushed_by: "a", pushed_at: 1 });
    repositories.agentPolicy.replace = async () => {
      throw new Error("database is locked");
    };
    const push = {
      version: 2,
      tool_policies: [{ mcp_server_id: "*", action: "deny" as const, tool_name: "x" }],
    };
    await expect(gov.agent.replace({ ...push, pushed_by: "a", pushed_at: 2 })).rejects.toThrow("locked");
    expect(gov.agent.version).toBe(1);
    expect(gov.policiesOver("math", [], null)).toEqual([]);
  });

  it("answer fresh without a promise while every copy is younger than the age, and read once it is older", async () => {
    const { gov, clock, repositories } = governance();
    await gov.load();
    expect(gov.fresh()).toBeUndefined();
    await repositories.toolWithdrawals.withdraw(withdrawal("math", "add", null));
    clock.t += SHARED_RECORDS_MAX_AGE_MS;
    const reading = gov.fresh();
    expect(reading).toBeInstanceOf(Promise);
    await reading;
    expect(gov.withdrawals.isWithdrawn("math", "add", null)).toBe(true);
    expect(gov.fresh()).toBeUndefined();
  });

  it("read once per peer event the records it names, whoever asks", async () => {
    const { gov, repositories } = governance();
    await gov.load();
    const reads = { withdrawals: 0, agent: 0, stored: 0, sessions: 0 };
    const count =
      <T>(name: keyof typeof reads, read: () => Promise<T>) =>
      () => {
        reads[name] += 1;
        return read();
      };
    const repos = repositories;
    repos.toolWithdrawals.list = count("withdrawals", repos.toolWithdrawals.list.bind(repos.toolWithdrawals));
    repos.agentPolicy.revision = count("agent", repos.agentPolicy.revision.bind(repos.agentPolicy));
    repos.toolAccessPolicies.list = count(
      "stored",
      repos.toolAccessPolicies.list.bind(repos.toolAccessPolicies),
    );
    repos.suspendedSessions.list = count(
      "sessions",
      repos.suspendedSessions.list.bind(repos.suspendedSessions),
    );
    const envelope = { event_id: "e", occurred_at: 1, produced_by: "peer" };
    const withdrawn = {
      ...envelope,
      type: "ToolPolicyChanged",
      mcp_server_id: "m",
      change: "withdrawn",
    } as const;
    await Promise.all([gov.readAfterPeerEvent(withdrawn), gov.readAfterPeerEvent(withdrawn)]);
    await gov.readAfterPeerEvent({ ...withdrawn, change: "agent_policy_set" });
    await gov.readAfterPeerEvent({ ...withdrawn, change: "stored_policy_set" });
    await gov.readAfterPeerEvent({
      ...envelope,
      type: "SessionSuspended",
      session_id: "s",
      reason: "r",
      suspended_by: "a",
    });
    expect(
      gov.readAfterPeerEvent({ ...envelope, type: "McpServerStopped", mcp_server_id: "m" } as never),
    ).toBeUndefined();
    expect(reads).toEqual({ withdrawals: 1, agent: 1, stored: 1, sessions: 1 });
  });

  it("read the agent policy another replica stored at start, and again once the copy is old", async () => {
    const { gov, repositories, clock } = governance();
    const stored = (tool_name: string, version: number) =>
      repositories.agentPolicy.replace({
        version,
        tool_policies: [{ mcp_server_id: "*", action: "deny", tool_name }],
        pushed_by: "agent",
        pushed_at: 1,
      });
    await stored("x", 1);
    await gov.load();
    expect(gov.agent.version).toBe(1);
    expect(gov.policiesOver("math", [], null)).toEqual([policy([], ["x"])]);
    await stored("y", 1);
    await gov.fresh();
    expect(gov.policiesOver("math", [], null)).toEqual([policy([], ["x"])]);
    clock.t += SHARED_RECORDS_MAX_AGE_MS;
    await gov.fresh();
    expect(gov.policiesOver("math", [], null)).toEqual([policy([], ["y"])]);
    // A push older than the stored one is refused even when this replica's copy is older still.
    await stored("z", 5);
    expect(await gov.agent.replace({ version: 4, tool_policies: [], pushed_by: "a", pushed_at: 2 })).toEqual({
      applied: false,
      version: 5,
    });
    expect(gov.policiesOver("math", [], null)).toEqual([policy([], ["z"])]);
  });

  it("decide prompt and resource access over the server, its groups and the tenant", () => {
    const { gov } = governance({
      access: new Map([
        ["rich", { resource: { allow_list: [], deny_list: ["rich://hidden/*"] } }],
        ["pool", { prompt: { allow_list: [], deny_list: ["secret-*"] } }],
      ]),
      tenants: new Map([
        ["t1", { ...policy([]), access: { prompt: { allow_list: ["greet"], deny_list: [] } } }],
      ]),
    });
    expect(gov.accessAllows("rich", [], null, "resource", "rich://hidden/1")).toBe(false);
    expect(gov.accessAllows("rich", [], null, "resource", "rich://readme")).toBe(true);
    expect(gov.accessAllows("rich", ["pool"], null, "prompt", "secret-x")).toBe(false);
    expect(gov.accessAllows("rich", [], "t1", "prompt", "other")).toBe(false);
    expect(gov.accessAllows("rich", [], "t1", "prompt", "greet")).toBe(true);
  });
});

describe("the shared-record reader", () => {
  it("reads again only when its copy is old, after a failure too, and keeps the last copy on failure", async () => {
    const clock = manualClock();
    let reads = 0;
    let fail = false;
    let copy: number[] = [];
    const reader = new SharedReader(
      async () => {
        reads++;
        if (fail) throw new Error("store down");
        return [reads];
      },
      (records: number[]) => {
        copy = records;
      },
      { clock, logger: silent, maxAgeMs: 1_000, what: "test" },
    );
    await reader.fresh();
    await reader.fresh();
    expect([reads, copy]).toEqual([1, [1]]);
    clock.t += 1_000;
    fail = true;
    await reader.fresh();
    expect([reads, copy]).toEqual([2, [1]]);
    await reader.fresh();
    expect(reads).toBe(2);
  });

  it("starts a reload after a read under way, so a change made meanwhile is seen", async () => {
    const clock = manualClock();
    let value = "old";
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    let copy = "";
    const reader = new SharedReader(
      async () => {
        const seen = value;
        if (first) {
          first = false;
          await gate;
        }
        return seen;
      },
      (records: string) => {
        copy = records;
      },
      { clock, logger: silent, maxAgeMs: 1_000, what: "test" },
    );
    const slow = reader.fresh();
    value = "new";
    const reload = reader.reload();
    release();
    await Promise.all([slow, reload]);
    expect(copy).toBe("new");
  });
});
