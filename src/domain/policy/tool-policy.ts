import { matchesAny } from "./fnmatch.js";

/** The `tools:` policy block (spec 2 §2), as the configuration gives it (defaults applied). */
export interface ToolPolicy {
  readonly allow_list: readonly string[];
  readonly deny_list: readonly string[];
  readonly approval_list: readonly string[];
}

export type ToolVerdict = "allow" | "deny" | "approval";

/**
 * One policy's verdict on a bare tool name: with an `allow_list`, only its matches are exposed and
 * `deny_list` is ignored; otherwise `deny_list` matches are hidden. A visible tool on
 * `approval_list` is held for a decision; `deny_list` wins over `approval_list`.
 */
export function verdictOf(policy: ToolPolicy | undefined, tool: string): ToolVerdict {
  if (!policy) return "allow";
  if (policy.allow_list.length > 0) {
    if (!matchesAny(tool, policy.allow_list)) return "deny";
  } else if (matchesAny(tool, policy.deny_list)) {
    return "deny";
  }
  return matchesAny(tool, policy.approval_list) ? "approval" : "allow";
}

/** Several policies govern one call (server, group, member): any deny denies, then any approval holds. */
export function combinedVerdict(policies: readonly (ToolPolicy | undefined)[], tool: string): ToolVerdict {
  let verdict: ToolVerdict = "allow";
  for (const policy of policies) {
    const one = verdictOf(policy, tool);
    if (one === "deny") return "deny";
    if (one === "approval") verdict = "approval";
  }
  return verdict;
}

/** `tools_policy` of `gateway_details` (spec 2 §4). */
export function policySummary(policy: ToolPolicy | undefined): {
  active: boolean;
  unrestricted: boolean;
  has_allow_list?: boolean;
  has_deny_list?: boolean;
} {
  if (!policy) return { active: false, unrestricted: true };
  return {
    active: true,
    unrestricted: policy.allow_list.length === 0 && policy.deny_list.length === 0,
    has_allow_list: policy.allow_list.length > 0,
    has_deny_list: policy.deny_list.length > 0,
  };
}

/** The tools a caller sees under these policies: denied ones are absent, held ones stay visible. */
export function visibleTools<T extends { name: string }>(
  tools: readonly T[],
  policies: readonly (ToolPolicy | undefined)[],
): T[] {
  if (policies.every((policy) => policy === undefined)) return [...tools];
  return tools.filter((tool) => combinedVerdict(policies, tool.name) !== "deny");
}
