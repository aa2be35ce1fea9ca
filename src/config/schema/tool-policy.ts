/**
 * The tool access policy block (`tools:` as a mapping) and the prompt/resource `access:` block.
 *
 * One parser serves every place the block appears (server, group, group member and
 * `tool_access.member.<tenant>`), so the three rules of the specification hold everywhere:
 * 1. any other key refuses the configuration, naming path and key;
 * 2. an invalid field refuses it (non-positive-integer timeout, empty or non-string pattern,
 *    whitespace-only channel, a list field that is not a list, a block that is not a mapping);
 * 3. `access:` holds `prompt` / `resource` sub-blocks with `allow_list` / `deny_list` only.
 */
import * as z from "zod";
import { withJsonSchema } from "./json-hints.js";
import {
  addError,
  closedObject,
  intAtLeast,
  isPlainObject,
  nonBlank,
  rule,
  stringList,
  withDeprecatedAlias,
} from "./primitives.js";

export const TOOL_POLICY_KEYS = [
  "allow_list",
  "deny_list",
  "approval_list",
  "approval_timeout_seconds",
  "approval_channel",
] as const;

/** Default hold of a gated call before it expires and is denied (spec 2 §8: 300 s). */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300;

const patternList = () => stringList("fnmatch patterns").default(() => []);

const TIMEOUT_RULE = "must be a positive integer (seconds)";

/**
 * A delivery channel name. `dashboard` is the old name of `event_stream`; it is accepted with a
 * deprecation warning so old files keep loading.
 */
export function channelName() {
  return withDeprecatedAlias(
    nonBlank("must be a non-empty channel name (whitespace only is refused)"),
    "dashboard",
    "event_stream",
    "in an earlier release",
  );
}

const policyShape = {
  allow_list: patternList(),
  deny_list: patternList(),
  approval_list: patternList(),
  approval_timeout_seconds: intAtLeast(1, TIMEOUT_RULE).default(DEFAULT_APPROVAL_TIMEOUT_SECONDS),
  approval_channel: channelName().optional(),
};

const POLICY_KEY_LIST = TOOL_POLICY_KEYS.join(", ");

/** The `tools:` policy block. Absent means unrestricted; that is decided by the caller. */
export const toolPolicySchema = closedObject(policyShape, {
  notMapping: `must be a mapping with keys ${POLICY_KEY_LIST} (null is refused)`,
  unknownKey: () => `is not a key of a tool policy block (allowed: ${POLICY_KEY_LIST})`,
  unknownKeyCode: "unknown_policy_key",
});

export type ToolPolicy = z.output<typeof toolPolicySchema>;

const accessKindSchema = closedObject(
  { allow_list: patternList(), deny_list: patternList() },
  {
    notMapping: "must be a mapping with keys allow_list, deny_list (null is refused)",
    unknownKey: (key) =>
      key === "approval_list"
        ? "is refused here: prompts and resources cannot be held for approval (allowed: allow_list, deny_list)"
        : "is not a key of an access block (allowed: allow_list, deny_list)",
    unknownKeyCode: "unknown_policy_key",
  },
);

/**
 * `access:` — prompt and resource visibility. Resources match on the upstream URI. A kind whose
 * block is absent stays unrestricted, so the sub-blocks keep no default.
 */
export const accessSchema = closedObject(
  { prompt: accessKindSchema.optional(), resource: accessKindSchema.optional() },
  {
    notMapping: "must be a mapping with keys prompt, resource (null is refused)",
    unknownKey: () => "is not a key of an access block (allowed: prompt, resource)",
    unknownKeyCode: "unknown_policy_key",
  },
);

export type AccessPolicy = z.output<typeof accessSchema>;

/** `tool_access.member.<tenant>`: the tool policy keys plus `access`, through the same parser. */
export const memberPolicySchema = closedObject(
  { ...policyShape, access: accessSchema.optional() },
  {
    notMapping: `must be a mapping with keys ${POLICY_KEY_LIST}, access (null is refused)`,
    unknownKey: () => `is not a key of a tenant policy block (allowed: ${POLICY_KEY_LIST}, access)`,
    unknownKeyCode: "unknown_policy_key",
  },
);

export type TenantToolPolicy = z.output<typeof memberPolicySchema>;

/** Per-tenant policies keyed by tenant id. */
export const tenantPoliciesSchema = z.record(
  z.string(),
  memberPolicySchema,
  rule("must be a mapping of tenant ids to policy blocks"),
);

const predefinedToolSchema = z.looseObject(
  {
    name: nonBlank("must be a non-empty string (the tool name)"),
    description: z.string(rule("must be a string")).optional(),
    inputSchema: z
      .record(z.string(), z.unknown(), rule("must be a mapping (a JSON Schema object)"))
      .default(() => ({ type: "object" })),
    outputSchema: z
      .record(z.string(), z.unknown(), rule("must be a mapping (a JSON Schema object)"))
      .optional(),
  },
  rule("must be a mapping describing one tool (name, description, inputSchema)"),
);

/** A tool schema declared in configuration: served without starting the server. */
export type PredefinedTool = z.output<typeof predefinedToolSchema>;

/** The list form of a server's `tools:` (predefined tool schemas); names must be unique. */
export const predefinedToolsSchema = z
  .array(predefinedToolSchema, rule("must be a list of tool schemas"))
  .superRefine(
    (tools: readonly unknown[], ctx) => {
      const seen = new Set<string>();
      tools.forEach((tool, index) => {
        const name = isPlainObject(tool) ? tool.name : undefined;
        if (typeof name !== "string") return;
        if (seen.has(name)) addError(ctx, [index, "name"], `duplicates the tool name '${name}'`);
        seen.add(name);
      });
    },
    // Also when another entry was refused, so a duplicate is reported in the same pass.
    { when: (payload) => Array.isArray(payload.value) },
  );

/** Copies the issues of a nested parse into the current context under `prefix`. */
export function forwardIssues(
  ctx: { addIssue: (issue: never) => void },
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): void {
  for (const issue of issues) {
    (ctx.addIssue as (issue: unknown) => void)({ ...issue, path: [...prefix, ...issue.path] });
  }
}

/**
 * A server's `tools:`: a list of tool schemas (predefined tools) or a policy mapping. Anything
 * else, null included, is refused. The choice is made on the value's shape, so each form reports
 * its own precise errors instead of a union's "no option matched".
 */
const serverToolsInput = z.unknown().transform((value, ctx): ToolPolicy | PredefinedTool[] | undefined => {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const parsed = predefinedToolsSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    forwardIssues(ctx, parsed.error.issues);
    return undefined;
  }
  if (!isPlainObject(value)) {
    addError(
      ctx,
      [],
      value === null
        ? "must be a policy mapping or a list of tool schemas (null is refused)"
        : "must be a policy mapping or a list of tool schemas",
    );
    return undefined;
  }
  const parsed = toolPolicySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  forwardIssues(ctx, parsed.error.issues);
  return undefined;
});

/** A server's `tools:`: a policy mapping, or the list of its tools' schemas. */
export const serverToolsSchema = withJsonSchema(serverToolsInput, (render) => ({
  anyOf: [render(toolPolicySchema), render(predefinedToolsSchema)],
})).optional();

/** True when a server's `tools:` is the predefined-tools list rather than a policy. */
export function isPredefinedTools(
  tools: ToolPolicy | readonly PredefinedTool[] | undefined,
): tools is PredefinedTool[] {
  return Array.isArray(tools);
}
