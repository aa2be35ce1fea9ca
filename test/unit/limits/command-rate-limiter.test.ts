import { describe, expect, it } from "vitest";
import { OPERATIONS, TOOL_EXPOSURES } from "../../../src/app/catalog.js";
import { ANONYMOUS, type Principal } from "../../../src/app/context.js";
import { commandBudgetOf } from "../../../src/app/limits/command-budgets.js";
import { CommandRateLimiter, callerKey } from "../../../src/app/limits/command-rate-limiter.js";
import type { Operation } from "../../../src/app/operation.js";
import type { Clock } from "../../../src/app/ports/clock.js";
import { GatewayError } from "../../../src/domain/errors.js";

class StepClock implements Clock {
  mono = 50_000;
  now(): number {
    return Date.UTC(2026, 0, 1) + this.mono;
  }
  monotonic(): number {
    return this.mono;
  }
}

const anonymous = { principal: ANONYMOUS };
const caller = (id: string, tenant_id: string | null = null) => ({
  principal: { id, type: "api_key", tenant_id, roles: [] } satisfies Principal,
});

function limiter(settings: { rps: number; burst: number; perCaller?: { rps: number; burst: number } }) {
  const clock = new StepClock();
  const rl = new CommandRateLimiter({
    clock,
    settings: { allCallers: { rps: settings.rps, burst: settings.burst }, perCaller: settings.perCaller },
  });
  return { clock, rl };
}

/** Charges `times` calls of `operation` at the current instant; counts admitted ones, keeps refusals. */
function chargeMany(
  rl: CommandRateLimiter,
  operation: Pick<Operation, "name" | "kind">,
  times: number,
  ctx = anonymous,
) {
  const refusals: GatewayError[] = [];
  let admitted = 0;
  for (let i = 0; i < times; i++) {
    try {
      rl.charge(operation, ctx);
      admitted++;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      refusals.push(error);
    }
  }
  return { admitted, refusals };
}

describe("command types of the rate limit", () => {
  it("gives the five named commands their own budgets on both edges", () => {
    expect(commandBudgetOf(OPERATIONS.startServer)).toBe("start");
    expect(commandBudgetOf(OPERATIONS.stopServer)).toBe("stop");
    expect(commandBudgetOf(OPERATIONS.serverTools)).toBe("tools");
    expect(commandBudgetOf(OPERATIONS.warmServers)).toBe("warm");
    expect(commandBudgetOf(OPERATIONS.reloadConfig)).toBe("reload");
  });

  it("names other limited tools' budgets after the tool", () => {
    expect(commandBudgetOf(OPERATIONS.callTools)).toBe("gateway_call");
    expect(commandBudgetOf(OPERATIONS.loadServer)).toBe("gateway_load");
    expect(commandBudgetOf(OPERATIONS.discoverySources)).toBe("gateway_sources");
    expect(commandBudgetOf(OPERATIONS.fetchContinuation)).toBe("gateway_fetch_continuation");
  });

  it("exempts exactly the read-only tools of spec 2 §8", () => {
    const exempt = TOOL_EXPOSURES.filter((t) => commandBudgetOf(t.operation) === null).map((t) => t.name);
    expect(exempt.sort()).toEqual(
      [
        "gateway_list",
        "gateway_status",
        "gateway_details",
        "gateway_group_list",
        "gateway_health",
        "gateway_metrics",
        "gateway_discovered",
        "gateway_quarantine",
      ].sort(),
    );
  });

  it("charges REST-only commands under their operation name and leaves REST-only queries free", () => {
    expect(commandBudgetOf(OPERATIONS.registerServer)).toBe("register-server");
    expect(commandBudgetOf(OPERATIONS.createGroup)).toBe("create-group");
    expect(commandBudgetOf(OPERATIONS.systemInfo)).toBeNull();
    expect(commandBudgetOf(OPERATIONS.serverLogs)).toBeNull();
  });
});

describe("the command-bus rate limiter", () => {
  it("admits exactly burst charges of one command at once, then refuses with the wait", () => {
    const { rl } = limiter({ rps: 10, burst: 5 });
    const { admitted, refusals } = chargeMany(rl, OPERATIONS.startServer, 15);
    expect(admitted).toBe(5);
    expect(refusals).toHaveLength(10);
    const [first] = refusals;
    expect(first?.type).toBe("RateLimitExceeded");
    expect(first?.details).toEqual({ retry_after: 0.1, scope: "all_callers", budget: "start", limit: 5 });
    expect(first?.message).toBe(
      "Rate limit exceeded: the shared (all callers) budget of command 'start' is used up " +
        "(limit 5, refilling at 10 per second); retry in 0.1 s",
    );
  });

  it("keeps one budget per command type", () => {
    const { rl } = limiter({ rps: 1, burst: 2 });
    expect(chargeMany(rl, OPERATIONS.startServer, 5).admitted).toBe(2);
    expect(chargeMany(rl, OPERATIONS.stopServer, 5).admitted).toBe(2);
    expect(chargeMany(rl, OPERATIONS.callTools, 5).admitted).toBe(2);
  });

  it("never charges exempt operations", () => {
    const { rl } = limiter({ rps: 1, burst: 1 });
    expect(chargeMany(rl, OPERATIONS.listServers, 50).admitted).toBe(50);
    expect(chargeMany(rl, OPERATIONS.gatewayHealth, 50).admitted).toBe(50);
    expect(rl.activeBuckets).toBe(0);
  });

  it("refills with elapsed monotonic time", () => {
    const { rl, clock } = limiter({ rps: 4, burst: 2 });
    expect(chargeMany(rl, OPERATIONS.warmServers, 3).admitted).toBe(2);
    clock.mono += 250;
    expect(chargeMany(rl, OPERATIONS.warmServers, 3).admitted).toBe(1);
    clock.mono += 10_000;
    expect(chargeMany(rl, OPERATIONS.warmServers, 3).admitted).toBe(2);
  });

  it("shares the all-callers budget between callers", () => {
    const { rl } = limiter({ rps: 1, burst: 3 });
    expect(chargeMany(rl, OPERATIONS.callTools, 2, caller("alice")).admitted).toBe(2);
    expect(chargeMany(rl, OPERATIONS.callTools, 2, caller("bob")).admitted).toBe(1);
  });

  it("with per_caller, limits each caller on its own bucket besides the shared one", () => {
    const { rl } = limiter({ rps: 10, burst: 20, perCaller: { rps: 1, burst: 2 } });
    const alice = chargeMany(rl, OPERATIONS.callTools, 4, caller("alice", "acme"));
    expect(alice.admitted).toBe(2);
    expect(alice.refusals[0]?.details).toEqual({
      retry_after: 1,
      scope: "caller",
      budget: "gateway_call",
      limit: 2,
    });
    expect(alice.refusals[0]?.message).toContain("this caller's budget of command 'gateway_call'");
    // Another principal, and the same principal id in another tenant, are other callers.
    expect(chargeMany(rl, OPERATIONS.callTools, 4, caller("bob", "acme")).admitted).toBe(2);
    expect(chargeMany(rl, OPERATIONS.callTools, 4, caller("alice", "globex")).admitted).toBe(2);
  });

  it("treats every anonymous caller as one caller", () => {
    const { rl } = limiter({ rps: 10, burst: 20, perCaller: { rps: 1, burst: 2 } });
    const other = { principal: { ...ANONYMOUS, id: "anonymous-2" } };
    expect(chargeMany(rl, OPERATIONS.callTools, 1, anonymous).admitted).toBe(1);
    expect(chargeMany(rl, OPERATIONS.callTools, 3, other).admitted).toBe(1);
    expect(callerKey(ANONYMOUS)).toBe(callerKey(other.principal));
  });

  it("reports the shared budget once it is the one used up, and spends no caller token on a refusal", () => {
    const { rl, clock } = limiter({ rps: 10, burst: 2, perCaller: { rps: 0.001, burst: 3 } });
    const first = chargeMany(rl, OPERATIONS.startServer, 3, caller("alice"));
    expect(first.admitted).toBe(2);
    expect(first.refusals[0]?.details).toMatchObject({ scope: "all_callers", limit: 2 });
    // The shared bucket is full again; Alice's own (barely refilling) kept the token of the refusal.
    clock.mono += 1_000;
    const second = chargeMany(rl, OPERATIONS.startServer, 2, caller("alice"));
    expect(second.admitted).toBe(1);
    expect(second.refusals[0]?.details).toMatchObject({ scope: "caller", limit: 3 });
  });

  it("reports the longer wait when both buckets are used up", () => {
    const { rl } = limiter({ rps: 1, burst: 1, perCaller: { rps: 0.5, burst: 1 } });
    rl.charge(OPERATIONS.startServer, caller("alice"));
    const { refusals } = chargeMany(rl, OPERATIONS.startServer, 1, caller("alice"));
    expect(refusals[0]?.details).toMatchObject({ scope: "caller", retry_after: 2 });
  });

  it("drops buckets once refilled, and only then", () => {
    const { rl, clock } = limiter({ rps: 1, burst: 10, perCaller: { rps: 0.5, burst: 2 } });
    for (let i = 0; i < 5; i++) rl.charge(OPERATIONS.callTools, caller(`c${i}`));
    expect(rl.activeBuckets).toBe(6);
    clock.mono += 1_500; // a sweep is due, but no bucket is full yet
    rl.charge(OPERATIONS.stopServer, caller("c0"));
    expect(rl.activeBuckets).toBe(8);
    clock.mono += 10_000; // every bucket is full: the sweep drops them all
    rl.charge(OPERATIONS.stopServer, caller("c0"));
    expect(rl.activeBuckets).toBe(2);
  });

  it("refuses invalid settings at construction", () => {
    expect(() => limiter({ rps: 0, burst: 1 })).toThrow(/rps must be a finite number greater than 0/);
    expect(() => limiter({ rps: 1, burst: 1, perCaller: { rps: 1, burst: 0 } })).toThrow(/burst/);
  });
});
