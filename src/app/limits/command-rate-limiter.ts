import { GatewayError } from "../../domain/errors.js";
import { type BucketSettings, dropRefilled, TokenBucket } from "../../domain/limits/token-bucket.js";
import type { Principal, RequestContext } from "../context.js";
import type { Operation } from "../operation.js";
import type { Clock } from "../ports/clock.js";
import type { CommandRateLimit } from "../services.js";
import { type CommandBudgetOf, commandBudgetOf } from "./command-budgets.js";

/**
 * Full buckets are dropped at most this often: a sweep walks every bucket, so sweeping on every
 * charge would make a charge cost grow with the number of callers.
 */
const SWEEP_INTERVAL_MS = 1_000;

export interface CommandRateLimitSettings {
  /** `rate_limit.rps` / `rate_limit.burst`: one bucket per command type, shared by all callers. */
  allCallers: BucketSettings;
  /** `rate_limit.per_caller`: one more bucket per command type and caller; absent: none. */
  perCaller?: BucketSettings | undefined;
}

/** Which bucket refused a charge; the REST details carry it as `scope`. */
export type RateLimitScope = "caller" | "all_callers";

/**
 * The command-bus rate limit (spec 2 §8), per replica and in memory. Each charge takes one token
 * from the budget of the operation's command type (see `commandBudgetOf`) shared by all callers and,
 * with `per_caller`, one from the caller's own bucket of that budget: a call is admitted only when
 * both hold a token, and then takes from both, so a refusal never spends anything. A caller is its
 * tenant plus its principal; every anonymous caller is the same caller. Buckets are dropped once
 * refilled, which bounds memory by the callers seen within one refill period.
 */
export class CommandRateLimiter implements CommandRateLimit {
  private readonly shared = new Map<string, TokenBucket>();
  private readonly callers = new Map<string, TokenBucket>();
  private readonly budgetOf: CommandBudgetOf;
  private lastSweep: number;

  constructor(
    private readonly deps: {
      clock: Clock;
      settings: CommandRateLimitSettings;
      /** Defaults to the spec's command types over the catalogue. */
      budgetOf?: CommandBudgetOf;
    },
  ) {
    // Refuse bad settings at construction rather than at the first charge.
    new TokenBucket(deps.settings.allCallers, 0);
    if (deps.settings.perCaller) new TokenBucket(deps.settings.perCaller, 0);
    this.budgetOf = deps.budgetOf ?? commandBudgetOf;
    this.lastSweep = deps.clock.monotonic();
  }

  /** Buckets held now (those not yet refilled), for health reporting. */
  get activeBuckets(): number {
    return this.shared.size + this.callers.size;
  }

  charge(operation: Pick<Operation, "name" | "kind">, ctx: Pick<RequestContext, "principal">): void {
    const budget = this.budgetOf(operation);
    if (budget === null) return;
    const now = this.deps.clock.monotonic();
    this.sweep(now);
    const { allCallers, perCaller } = this.deps.settings;
    const shared = bucketIn(this.shared, budget, allCallers, now);
    const own = perCaller
      ? bucketIn(this.callers, JSON.stringify([budget, callerKey(ctx.principal)]), perCaller, now)
      : null;
    const refusals: { scope: RateLimitScope; bucket: TokenBucket }[] = [];
    if (own && !own.canTake(now)) refusals.push({ scope: "caller", bucket: own });
    if (!shared.canTake(now)) refusals.push({ scope: "all_callers", bucket: shared });
    if (refusals.length === 0) {
      shared.tryTake(now);
      own?.tryTake(now);
      return;
    }
    // The call may pass once every refusing bucket holds a token: report the longest wait.
    const worst = refusals.reduce((a, b) =>
      b.bucket.retryAfterSeconds(now) > a.bucket.retryAfterSeconds(now) ? b : a,
    );
    throw rateLimitExceeded(budget, worst.scope, worst.bucket.settings, worst.bucket.retryAfterSeconds(now));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    dropRefilled(this.shared, now);
    dropRefilled(this.callers, now);
  }
}

/** Tenant plus principal; every anonymous caller is one caller (spec 2 §8 `per_caller`). */
export function callerKey(principal: Pick<Principal, "id" | "type" | "tenant_id">): string {
  if (principal.type === "anonymous") return "anonymous";
  return JSON.stringify([principal.tenant_id, principal.id]);
}

function bucketIn(
  buckets: Map<string, TokenBucket>,
  key: string,
  settings: BucketSettings,
  now: number,
): TokenBucket {
  let bucket = buckets.get(key);
  if (!bucket) {
    bucket = new TokenBucket(settings, now);
    buckets.set(key, bucket);
  }
  return bucket;
}

/** Milliseconds are the finest wait worth reporting; rounded up so a retry at that time passes. */
function roundUpToMs(seconds: number): number {
  return Math.ceil(seconds * 1000) / 1000;
}

function rateLimitExceeded(
  budget: string,
  scope: RateLimitScope,
  settings: BucketSettings,
  retryAfterSeconds: number,
): GatewayError {
  const retryAfter = roundUpToMs(retryAfterSeconds);
  const whose = scope === "caller" ? "this caller's" : "the shared (all callers)";
  return new GatewayError(
    "RateLimitExceeded",
    `Rate limit exceeded: ${whose} budget of command '${budget}' is used up ` +
      `(limit ${settings.burst}, refilling at ${settings.rps} per second); retry in ${retryAfter} s`,
    { retry_after: retryAfter, scope, budget, limit: settings.burst },
  );
}
