import { GatewayError } from "../../domain/errors.js";
import { ConcurrencyBudget } from "../../domain/limits/concurrency-budget.js";
import { TokenBucket } from "../../domain/limits/token-bucket.js";

/** One `execution.tenant_limits.<tenant>` entry. */
export interface TenantBudgetSettings {
  readonly max_concurrency: number;
  readonly rps: number;
  readonly burst: number;
}

/** `execution.tenant_limits`: tenant id (or `*`, the template) -> budget. */
export type TenantLimits = Readonly<Record<string, TenantBudgetSettings>>;

/** The template key: each unlisted tenant gets a budget of its own with these settings. */
export const TEMPLATE_KEY = "*";

/**
 * How tenantless callers are labelled in budgets (and why configuration refuses `none` as a tenant
 * id: a real tenant of that name would share their budget).
 */
const TENANTLESS = "none";

/** Idle budgets are dropped at most this often: a sweep walks every budget. */
const SWEEP_INTERVAL_MS = 1_000;

export type TenantQuotaReason = "no_budget" | "concurrency" | "rate";

/** A call admitted by its tenant's concurrency and rate budgets, not yet charged a token. */
export interface TenantReservation {
  /** The budget's label, `tenant:<id>` (`tenant:none` for callers without a tenant). */
  readonly budget: string;
  /** Takes the rate token: call it once every other budget admitted the call too. */
  commit(): void;
  /** Frees the concurrency slot; idempotent. */
  release(): void;
}

interface Entry {
  settings: TenantBudgetSettings;
  concurrency: ConcurrencyBudget;
  bucket: TokenBucket;
}

/**
 * Per-tenant budgets of the tool-call path (spec 2 §2 `execution.tenant_limits`, §8): calls at
 * once and calls per second, per process. A listed tenant has its own budget; with `*` each unlisted
 * tenant gets one of its own and tenantless callers share one (every caller when authentication is
 * off); without `*` both are refused. Over-budget calls are refused at once with
 * `TenantQuotaExceeded` and `details.reason` `no_budget`, `concurrency` or `rate`. A budget with no
 * call in progress whose bucket is full is dropped (recreated identical on next use), so memory is
 * bounded by the tenants active within one refill period.
 */
export class TenantBudgets {
  private readonly entries = new Map<string, Entry>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly limits: TenantLimits) {
    for (const [tenant, settings] of Object.entries(limits)) {
      try {
        new TokenBucket(settings, 0);
      } catch (error) {
        throw new RangeError(`execution.tenant_limits.${tenant}: ${(error as Error).message}`);
      }
    }
  }

  /** Budgets held now, for reporting. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Admits a call of `tenant` (null: tenantless) at monotonic `now`, holding a concurrency slot
   * until `release`. Throws `TenantQuotaExceeded` when the tenant has no budget, has as many calls
   * in progress as it may, or has no token left; nothing is held or spent then.
   */
  reserve(tenant: string | null, now: number): TenantReservation {
    this.sweep(now);
    const key = tenant ?? TENANTLESS;
    const budget = `tenant:${key}`;
    const settings = (tenant !== null ? this.limits[tenant] : undefined) ?? this.limits[TEMPLATE_KEY];
    if (!settings) throw noBudget(tenant, budget);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        settings,
        concurrency: new ConcurrencyBudget(settings.max_concurrency),
        bucket: new TokenBucket(settings, now),
      };
      this.entries.set(key, entry);
    }
    const { concurrency, bucket } = entry;
    if (!concurrency.tryAcquire()) {
      throw quotaExceeded(
        `concurrency budget '${budget}' is used up (${settings.max_concurrency} calls at once)`,
        budget,
        "concurrency",
        { limit: settings.max_concurrency },
      );
    }
    if (!bucket.canTake(now)) {
      concurrency.release();
      throw overRate(budget, settings, bucket.retryAfterSeconds(now));
    }
    let held = true;
    return {
      budget,
      commit: () => {
        bucket.tryTake(now);
      },
      release: () => {
        if (!held) return;
        held = false;
        concurrency.release();
      },
    };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) {
      if (entry.concurrency.active === 0 && entry.bucket.isFull(now)) this.entries.delete(key);
    }
  }
}

function noBudget(tenant: string | null, budget: string): GatewayError {
  const who = tenant === null ? "callers without a tenant have" : `tenant '${tenant}' has`;
  return quotaExceeded(
    `${who} no budget in execution.tenant_limits (it lists no such tenant and no '*' template)`,
    budget,
    "no_budget",
  );
}

function overRate(budget: string, settings: TenantBudgetSettings, retryAfterSeconds: number): GatewayError {
  const retryAfter = Math.ceil(retryAfterSeconds * 1000) / 1000;
  return quotaExceeded(
    `rate budget '${budget}' is used up (burst ${settings.burst}, refilling at ${settings.rps} per second); ` +
      `retry in ${retryAfter} s`,
    budget,
    "rate",
    { limit: settings.burst, retry_after: retryAfter },
  );
}

function quotaExceeded(
  message: string,
  budget: string,
  reason: TenantQuotaReason,
  extra: Record<string, unknown> = {},
): GatewayError {
  return new GatewayError("TenantQuotaExceeded", message, { budget, reason, ...extra });
}
