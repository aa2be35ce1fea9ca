/**
 * Top-level policy sections: approvals, ui_resources, startup_checks, the global part of
 * tool_projection, headers and tool_access.
 */
import * as z from "zod";
import {
  addError,
  bool,
  intAtLeast,
  intBetween,
  integer,
  mapOf,
  nonBlank,
  numberAbove,
  oneOf,
  optionalSection,
  redisUrl,
  rule,
  section,
  stringList,
} from "./primitives.js";
import { channelName, tenantPoliciesSchema } from "./tool-policy.js";

/**
 * Settings of one delivery adapter (`approvals.slack`, `approvals.webhook`, ...): passed to the
 * adapter as they are.
 */
const channelSettingsSchema = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .record(z.string(), z.unknown(), rule("must be a mapping of settings for the delivery adapter"))
    .optional(),
);

/**
 * `approvals`. Keys other than the known ones are kept as the settings of further delivery
 * adapters (the loader still flags them as unknown keys, as the specification asks).
 */
export const approvalsSchema = z.preprocess(
  (value) => (value === null ? undefined : value),
  z
    .looseObject(
      {
        enabled: bool().default(true),
        channel: channelName().default("event_stream"),
        delivery: section({
          required: bool().default(false),
          // Channels with an adapter (webhook, slack) are delivered as BullMQ jobs in this Redis.
          redis_url: redisUrl().optional(),
          // Attempts per request (the first included), and the first retry's delay, doubling;
          // unset, the composition's defaults (docs/approvals.md).
          max_attempts: intBetween(1, 20).optional(),
          backoff_s: numberAbove(0, 3600).optional(),
        }),
        slack: channelSettingsSchema,
        webhook: channelSettingsSchema,
      },
      rule("must be a mapping"),
    )
    .superRefine((value, ctx) => {
      for (const [key, settings] of Object.entries(value)) {
        if (APPROVALS_KEYS.has(key)) continue;
        if (settings !== null && (typeof settings !== "object" || Array.isArray(settings))) {
          addError(ctx, [key], "must be a mapping of settings for the delivery adapter of that name");
        }
      }
    })
    .prefault({}),
);

/** Keys of `approvals` that the key check knows; others are adapter settings flagged as unknown. */
export const APPROVALS_KEYS: ReadonlySet<string> = new Set([
  "enabled",
  "channel",
  "delivery",
  "slack",
  "webhook",
]);

/**
 * A CSP suitable for a sandboxed UI resource: its own scripts and styles, inline images, no
 * network access, no forms and no base-URI rewriting.
 */
export const DEFAULT_UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

const UI_ENTRY_RULE = "must be a ui:// URI, a prefix ending in '/', or a wildcard ending in '*'";

export const uiResourcesSchema = section({
  tenants: mapOf(
    z.strictObject(
      {
        allowlist: z
          .array(
            z.string(rule(UI_ENTRY_RULE)).refine((entry) => entry.startsWith("ui://") && entry.length > 5, {
              error: UI_ENTRY_RULE,
            }),
            rule("must be a list of ui:// entries (a bare string is refused)"),
          )
          .default(() => []),
        csp: nonBlank("must be a non-empty Content-Security-Policy").default(DEFAULT_UI_CSP),
      },
      rule("must be a mapping with keys allowlist, csp"),
    ),
    "must be a mapping of tenant ids to {allowlist, csp}",
  ).default(() => ({})),
});

export const startupChecksSchema = section({ enforce: bool().default(true) });

const PIN_RECHECK_RULE = "must be 0 (disabled) or an integer between 5 and 3600";

/** Global part of `tool_projection`; per-server pins live on each server. */
export const globalToolProjectionSchema = section({
  pin_recheck_interval_s: integer(
    PIN_RECHECK_RULE,
    (value) => value === 0 || (value >= 5 && value <= 3600),
  ).default(60),
});

export const headersSchema = section({
  param_validation: section({ required: bool().default(false) }),
});

/** Default window of `tool_access.required_catalogue.retry_for_s` (spec: 600 s). */
const DEFAULT_CATALOGUE_RETRY_S = 600;

export const toolAccessSchema = section({
  mode: oneOf(["egress", "front_door"]).default("egress"),
  required_catalogue: optionalSection({
    servers: stringList("server ids").min(1, { error: "must list at least one server id" }),
    retry_for_s: numberAbove(0).default(DEFAULT_CATALOGUE_RETRY_S),
  }),
  // Per-tenant policy applied on every server and group, in addition to their own.
  member: tenantPoliciesSchema.default(() => ({})),
});

/** `resource_links.max_per_tenant`: per replica, in memory, oldest evicted first. */
export const resourceLinksSchema = section({
  max_per_tenant: intAtLeast(1).default(4096),
});

export const configReloadSchema = section({
  enabled: bool().default(true),
  use_watchdog: bool().default(true),
  interval_s: intBetween(1, 3600).default(5),
});
