import { describe, expect, it } from "vitest";
import { TenantBudgets } from "../../../src/app/limits/tenant-budgets.js";
import { GatewayError } from "../../../src/domain/errors.js";

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

const roomy = { max_concurrency: 100, rps: 100, burst: 100 };

describe("per-tenant budgets", () => {
  it("refuses an unlisted tenant and tenantless callers without a '*' template", () => {
    const budgets = new TenantBudgets({ acme: roomy });
    const unlisted = refusal(() => budgets.reserve("globex", 0));
    expect(unlisted.type).toBe("TenantQuotaExceeded");
    expect(unlisted.details).toEqual({ budget: "tenant:globex", reason: "no_budget" });
    expect(unlisted.message).toContain("tenant 'globex' has no budget in execution.tenant_limits");
    const tenantless = refusal(() => budgets.reserve(null, 0));
    expect(tenantless.details).toEqual({ budget: "tenant:none", reason: "no_budget" });
    expect(tenantless.message).toContain("callers without a tenant have no budget");
    expect(budgets.reserve("acme", 0).budget).toBe("tenant:acme");
  });

  it("refuses over max_concurrency until a call ends", () => {
    const budgets = new TenantBudgets({ acme: { max_concurrency: 2, rps: 100, burst: 100 } });
    const one = budgets.reserve("acme", 0);
    budgets.reserve("acme", 0);
    const over = refusal(() => budgets.reserve("acme", 0));
    expect(over.details).toEqual({ budget: "tenant:acme", reason: "concurrency", limit: 2 });
    one.release();
    one.release(); // idempotent: frees one slot only
    budgets.reserve("acme", 0);
    expect(refusal(() => budgets.reserve("acme", 0)).details).toMatchObject({ reason: "concurrency" });
  });

  it("refuses over rps once the burst is spent, and refills with time", () => {
    const budgets = new TenantBudgets({ acme: { max_concurrency: 100, rps: 2, burst: 3 } });
    for (let i = 0; i < 3; i++) {
      const call = budgets.reserve("acme", 0);
      call.commit();
      call.release();
    }
    const over = refusal(() => budgets.reserve("acme", 0));
    expect(over.details).toEqual({ budget: "tenant:acme", reason: "rate", limit: 3, retry_after: 0.5 });
    expect(over.message).toContain("refilling at 2 per second");
    budgets.reserve("acme", 500).commit();
  });

  it("spends a token only on commit, and holds no slot after a rate refusal", () => {
    const budgets = new TenantBudgets({ acme: { max_concurrency: 1, rps: 1, burst: 1 } });
    budgets.reserve("acme", 0).release(); // not committed: the token stays
    const call = budgets.reserve("acme", 0);
    call.commit();
    call.release();
    expect(refusal(() => budgets.reserve("acme", 0)).details).toMatchObject({ reason: "rate" });
    // The refused reservation did not keep the single slot.
    budgets.reserve("acme", 1_000).release();
  });

  it("gives each unlisted tenant its own budget from '*', and tenantless callers one shared budget", () => {
    const budgets = new TenantBudgets({ "*": { max_concurrency: 1, rps: 100, burst: 100 } });
    const a = budgets.reserve("a", 0);
    const b = budgets.reserve("b", 0);
    expect([a.budget, b.budget]).toEqual(["tenant:a", "tenant:b"]);
    expect(refusal(() => budgets.reserve("a", 0)).details).toMatchObject({
      budget: "tenant:a",
      reason: "concurrency",
    });
    const first = budgets.reserve(null, 0);
    expect(first.budget).toBe("tenant:none");
    expect(refusal(() => budgets.reserve(null, 0)).details).toMatchObject({
      budget: "tenant:none",
      reason: "concurrency",
    });
  });

  it("uses a listed tenant's own settings rather than the template", () => {
    const budgets = new TenantBudgets({
      "*": { max_concurrency: 1, rps: 100, burst: 100 },
      acme: { max_concurrency: 3, rps: 100, burst: 100 },
    });
    for (let i = 0; i < 3; i++) budgets.reserve("acme", 0);
    expect(refusal(() => budgets.reserve("acme", 0)).details).toMatchObject({ limit: 3 });
  });

  it("drops a budget only when no call is in progress and its bucket is full", () => {
    const budgets = new TenantBudgets({ "*": { max_concurrency: 5, rps: 1, burst: 2 } });
    const busy = budgets.reserve("busy", 0);
    const spent = budgets.reserve("spent", 0);
    spent.commit();
    spent.release();
    expect(budgets.size).toBe(2);
    budgets.reserve("probe", 500).release(); // sweep due? not yet (first sweep ran at 0)
    expect(budgets.size).toBe(3);
    budgets.reserve("probe", 1_000).release(); // 'spent' is full again, 'busy' still runs a call
    expect(budgets.size).toBe(2);
    busy.release();
    budgets.reserve("probe", 2_000).release();
    expect(budgets.size).toBe(1); // only the probe just used
  });

  it("refuses a budget that cannot be honoured, naming the tenant", () => {
    expect(() => new TenantBudgets({ acme: { max_concurrency: 1, rps: 0, burst: 1 } })).toThrow(
      /execution\.tenant_limits\.acme: token bucket rps must be/,
    );
  });
});
