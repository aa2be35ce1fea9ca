/**
 * An `mcp_servers.<id>` entry with `mode: group`: a load-balanced set of members.
 *
 * A member whose `id` names a declared server is a reference and reads only `id`, `weight`,
 * `priority` and `tools`; any other member is a full inline server and must say how to run. That
 * choice depends on the other entries of the file, so the schema is built per document with the
 * declared ids.
 */

import * as z from "zod";
import {
  DEFAULT_STRATEGY,
  isStrategyName,
  STRATEGY_NAMES,
  type StrategyName,
} from "../../domain/group/strategies.js";
import { cleanChecker } from "./clean.js";
import {
  addError,
  addWarning,
  bool,
  intAtLeast,
  intBetween,
  isPlainObject,
  mapOf,
  nonBlank,
  numberBetween,
  omitKeys,
  optionalSection,
  removedKey,
  rule,
  section,
} from "./primitives.js";
import { headerExposureSchema, serverToolProjectionSchema } from "./server-blocks.js";
import { parseServerEntry, SERVER_ID_PATTERN, SERVER_ID_RULE, type ServerEntry } from "./servers.js";
import { accessSchema, forwardIssues, type ToolPolicy, toolPolicySchema } from "./tool-policy.js";

/** Strategies of the first document (the domain's list); an unknown one falls back to round_robin with a warning. */
export const GROUP_STRATEGIES = STRATEGY_NAMES;
export type GroupStrategy = StrategyName;

const isStrategy = isStrategyName;

const strategySchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (value !== undefined && !isStrategy(value)) {
      addWarning(
        ctx,
        [],
        `unknown strategy ${JSON.stringify(value)}; falling back to ${DEFAULT_STRATEGY} (known: ${GROUP_STRATEGIES.join(", ")})`,
        { warning: "unknown_group_strategy", fix: { kind: "replace", value: DEFAULT_STRATEGY } },
      );
    }
  })
  // Editors offer the known names; any other string loads (with the warning above).
  .meta({ anyOf: [{ enum: [...GROUP_STRATEGIES] }, { type: "string" }] })
  .transform((value): GroupStrategy => (isStrategy(value) ? value : DEFAULT_STRATEGY))
  .default(DEFAULT_STRATEGY);

/** Keys a referencing member reads; everything else on it is ignored with a warning. */
const REFERENCE_KEYS = new Set(["id", "weight", "priority", "tools"]);
const MEMBER_ONLY_KEYS: ReadonlySet<string> = new Set(["id", "weight", "priority"]);

export const memberWeights = {
  weight: intBetween(1, 100).default(1),
  // Lower means preferred by the priority strategy.
  priority: intBetween(1, 100).default(1),
};

const referenceMemberSchema = z.strictObject({
  id: nonBlank(),
  ...memberWeights,
  tools: toolPolicySchema.optional(),
});

const inlineWeightsSchema = z.object(memberWeights);

/** A member naming a server declared in `mcp_servers`. */
export interface ReferenceMember {
  readonly kind: "reference";
  readonly id: string;
  readonly weight: number;
  readonly priority: number;
  /** Member-level tool policy (applies on top of the server's own). */
  readonly tools?: ToolPolicy;
}

/** A member declared in full inside the group; `server.tools` is its tool configuration. */
export interface InlineMember {
  readonly kind: "inline";
  readonly id: string;
  readonly weight: number;
  readonly priority: number;
  readonly server: ServerEntry;
}

export type GroupMember = ReferenceMember | InlineMember;

/** What the group parser knows of the other entries: id to kind. */
export type DeclaredEntries = ReadonlyMap<string, "server" | "group">;

type Ctx = Parameters<typeof addError>[0];

function parseMember(
  value: unknown,
  index: number,
  ctx: Ctx,
  declared: DeclaredEntries,
): GroupMember | undefined {
  if (!isPlainObject(value)) {
    addError(ctx, [index], "must be a mapping with at least an id");
    return undefined;
  }
  const id = value.id;
  if (typeof id !== "string" || id.trim().length === 0) {
    addError(ctx, [index, "id"], id === undefined ? "is required" : "must be a non-empty string");
    return undefined;
  }
  const kind = declared.get(id);
  if (kind === "group") {
    addError(ctx, [index, "id"], `names the group '${id}'; a group cannot be a member of another group`);
    return undefined;
  }
  if (kind === "server") {
    const input: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (REFERENCE_KEYS.has(key)) input[key] = item;
      else {
        addWarning(
          ctx,
          [index, key],
          `ignored: member '${id}' names a declared server, so only id, weight, priority and tools are read`,
          { warning: "config_key_ignored", fix: { kind: "delete" } },
        );
      }
    }
    const parsed = referenceMemberSchema.safeParse(input);
    if (!parsed.success) {
      forwardIssues(ctx, parsed.error.issues, [index]);
      return undefined;
    }
    const { tools, ...rest } = parsed.data;
    return tools === undefined ? { kind: "reference", ...rest } : { kind: "reference", ...rest, tools };
  }
  if (!SERVER_ID_PATTERN.test(id)) {
    addError(ctx, [index, "id"], SERVER_ID_RULE);
    return undefined;
  }
  const weights = inlineWeightsSchema.safeParse({ weight: value.weight, priority: value.priority });
  if (!weights.success) forwardIssues(ctx, weights.error.issues, [index]);
  const server = parseServerEntry(value, ctx, [index], {
    skipKeys: MEMBER_ONLY_KEYS,
    requiredHint: ` (member '${id}' names no declared server, so it must be a full inline server)`,
  });
  if (!weights.success || server === undefined) return undefined;
  return { kind: "inline", id, ...weights.data, server };
}

function membersSchema(declared: DeclaredEntries) {
  return z.array(z.unknown(), rule("must be a list of members")).transform((items, ctx): GroupMember[] => {
    const members: GroupMember[] = [];
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const member = parseMember(item, index, ctx, declared);
      if (member === undefined) return;
      if (seen.has(member.id)) addError(ctx, [index, "id"], `duplicates the member '${member.id}'`);
      seen.add(member.id);
      members.push(member);
    });
    return members;
  });
}

const canarySchema = optionalSection({
  member: nonBlank("must be a member id").optional(),
  split_pct: numberBetween(0, 100).default(0),
  pinned_tenants: mapOf(
    nonBlank("must be a member id"),
    "must be a mapping of tenant ids to member ids",
  ).default(() => ({})),
});

/** Builds the group entry schema knowing which ids the document declares. */
export function groupEntrySchema(declared: DeclaredEntries) {
  return z
    .strictObject({
      mode: z.literal("group"),
      strategy: strategySchema,
      min_healthy: intAtLeast(1).default(1),
      auto_start: bool().default(true),
      description: z.string(rule("must be a string")).optional(),
      health: section({
        unhealthy_threshold: intAtLeast(1).default(2),
        healthy_threshold: intAtLeast(1).default(1),
      }),
      circuit_breaker: section({
        failure_threshold: intAtLeast(1).default(10),
        reset_timeout_s: removedKey("was removed (the circuit closes through health checks)"),
      }).transform((value) => omitKeys(value, ["reset_timeout_s"])),
      tools: z
        .unknown()
        .superRefine((value, ctx) => {
          if (Array.isArray(value)) {
            addError(ctx, [], "must be a policy mapping: a group takes no list of predefined tools");
          }
        })
        .pipe(toolPolicySchema.optional())
        .optional(),
      canary: canarySchema,
      members: membersSchema(declared).default([]),
      max_concurrency: intAtLeast(0).optional(),
      access: accessSchema.optional(),
      tool_projection: serverToolProjectionSchema,
      header_exposure: headerExposureSchema,
    })
    .superRefine(
      (group, ctx) => {
        const clean = cleanChecker(ctx.issues);
        if (!clean(["members"]) || !clean(["canary"])) return;
        checkCanary(group.canary, new Set(group.members.map((member) => member.id)), ctx);
      },
      { when: (payload) => isPlainObject(payload.value) },
    );
}

type Canary = z.output<typeof canarySchema>;

/** The canary names members of its own group. */
function checkCanary(canary: Canary, ids: ReadonlySet<string>, ctx: Ctx): void {
  if (canary === undefined) return;
  if (canary.member !== undefined && !ids.has(canary.member)) {
    addError(ctx, ["canary", "member"], `names no member of this group ('${canary.member}')`);
  }
  if (canary.split_pct > 0 && canary.member === undefined) {
    addError(ctx, ["canary", "member"], "is required when canary.split_pct is above 0");
  }
  for (const [tenant, member] of Object.entries(canary.pinned_tenants)) {
    if (!ids.has(member))
      addError(ctx, ["canary", "pinned_tenants", tenant], `names no member of this group ('${member}')`);
  }
}

export type GroupEntry = z.output<ReturnType<typeof groupEntrySchema>>;
