/**
 * Budgets and sizes: execution, truncation, interceptors and the command-bus rate limit.
 */
import * as z from "zod";
import { cleanChecker } from "./clean.js";
import {
  addError,
  bool,
  closedObject,
  intAtLeast,
  intBetween,
  isPlainObject,
  mapOf,
  numberAbove,
  oneOf,
  redisUrl,
  rule,
  section,
} from "./primitives.js";
import { forwardIssues } from "./tool-policy.js";

/** Spec 2 §8: 32 MiB upstream response limit. */
export const DEFAULT_MAX_RESPONSE_BYTES = 33_554_432;

/**
 * A tenant id that cannot be declared: tenantless callers are labelled `none` in metrics and
 * budgets, so a real tenant of that name would share their counters.
 */
export const RESERVED_TENANT_ID = "none";

const tenantBudgetSchema = closedObject(
  {
    max_concurrency: intBetween(1, 1_000_000_000),
    rps: numberAbove(0, 1_000_000),
    burst: intBetween(1, 1_000_000_000),
  },
  {
    notMapping: "must be a mapping with exactly max_concurrency, rps, burst",
    unknownKey: () => "is not a budget key (a tenant budget has exactly max_concurrency, rps, burst)",
    unknownKeyCode: "unknown_budget_key",
  },
);

export const executionSchema = section({
  max_concurrency: intAtLeast(0).default(50),
  default_mcp_server_concurrency: intAtLeast(0).default(10),
  max_response_bytes: intAtLeast(1).default(DEFAULT_MAX_RESPONSE_BYTES),
  tenant_limits: z.preprocess(
    (value) => (value === null ? undefined : value),
    mapOf(tenantBudgetSchema, "must be a mapping of tenant ids (or '*') to budgets")
      .superRefine(
        (limits, ctx) => {
          if (Object.keys(limits).length === 0) {
            // Without '*' unlisted tenants are refused: an empty map would refuse every caller.
            addError(
              ctx,
              [],
              "must list at least one tenant or '*' (omit the key for no per-tenant budgets)",
            );
          }
          if (RESERVED_TENANT_ID in limits) {
            addError(
              ctx,
              [RESERVED_TENANT_ID],
              "'none' cannot be a tenant id (it labels callers without a tenant)",
            );
          }
        },
        { when: (payload) => isPlainObject(payload.value) },
      )
      .optional(),
  ),
});

const MIN_PER_RESPONSE_DEFAULT = 10_000;
const MAX_BATCH_DEFAULT = 900_000;

export const truncationSchema = section({
  enabled: bool().default(false),
  max_batch_size_bytes: intAtLeast(1).default(MAX_BATCH_DEFAULT),
  min_per_response_bytes: intAtLeast(1).default(MIN_PER_RESPONSE_DEFAULT),
  cache_ttl_s: intAtLeast(1).default(300),
  cache_driver: oneOf(["memory", "redis"]).default("memory"),
  redis_url: redisUrl().optional(),
  max_cache_entries: intAtLeast(1).default(10_000),
  preserve_json_structure: bool().default(true),
  truncate_on_line_boundary: bool().default(true),
}).superRefine((truncation, ctx) => {
  const clean = cleanChecker(ctx.issues);
  if (
    clean(["min_per_response_bytes"]) &&
    clean(["max_batch_size_bytes"]) &&
    truncation.min_per_response_bytes > truncation.max_batch_size_bytes
  ) {
    addError(
      ctx,
      ["min_per_response_bytes"],
      `must not exceed max_batch_size_bytes (${truncation.max_batch_size_bytes})`,
    );
  }
  if (clean(["cache_driver"]) && truncation.cache_driver === "redis" && truncation.redis_url === undefined) {
    addError(
      ctx,
      ["redis_url"],
      "is required when cache_driver is redis (there is no silent fallback to memory)",
    );
  }
});

/** Spec 2 §8: the payload_size validator's default limit. */
export const DEFAULT_PAYLOAD_MAX_BYTES = 1_000_000;

const VALIDATOR_TYPES = ["payload_size"] as const;

const validatorSchemas = {
  payload_size: z.strictObject({
    type: z.literal("payload_size"),
    max_bytes: intAtLeast(1).default(DEFAULT_PAYLOAD_MAX_BYTES),
  }),
};

export type ValidatorConfig = z.output<(typeof validatorSchemas)["payload_size"]>;

/** Validators registered in order; an unknown or missing `type` refuses the configuration. */
const validatorsSchema = z
  .array(z.unknown(), rule("must be a list of validators"))
  .transform((items, ctx) => {
    const validators: ValidatorConfig[] = [];
    items.forEach((item, index) => {
      if (!isPlainObject(item)) {
        addError(ctx, [index], "must be a mapping with a type");
        return;
      }
      if (item.type === undefined) {
        addError(ctx, [index, "type"], `is required (known types: ${VALIDATOR_TYPES.join(", ")})`);
        return;
      }
      if (item.type !== "payload_size") {
        addError(ctx, [index, "type"], `must be one of ${VALIDATOR_TYPES.join(", ")}`);
        return;
      }
      const parsed = validatorSchemas.payload_size.safeParse(item);
      if (parsed.success) validators.push(parsed.data);
      else forwardIssues(ctx, parsed.error.issues, [index]);
    });
    return validators;
  });

export const interceptorsSchema = section({ validators: validatorsSchema.default(() => []) });

/** Spec 2 §8 defaults of the command-bus limit. */
export const DEFAULT_RATE_LIMIT = { rps: 10, burst: 20 } as const;

export const rateLimitSchema = section({
  rps: numberAbove(0).default(DEFAULT_RATE_LIMIT.rps),
  burst: intAtLeast(1).default(DEFAULT_RATE_LIMIT.burst),
  per_caller: z.preprocess(
    (value) => (value === null ? undefined : value),
    closedObject(
      { rps: numberAbove(0), burst: intAtLeast(1) },
      {
        notMapping: "must be a mapping with rps (number > 0) and burst (integer >= 1)",
        unknownKey: () => "is not a key of per_caller (allowed: rps, burst)",
        unknownKeyCode: "unknown_budget_key",
      },
    ).optional(),
  ),
});
