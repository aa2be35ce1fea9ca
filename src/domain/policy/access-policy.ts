import { matchesAny } from "./fnmatch.js";
import type { ToolPolicy } from "./tool-policy.js";

/** One kind's block of `access:` (spec 2 §2): fnmatch globs on a prompt name or a resource URI. */
export interface AccessRules {
  readonly allow_list: readonly string[];
  readonly deny_list: readonly string[];
}

/** `access:` of a server, a group or a tenant: an absent kind is unrestricted. */
export interface AccessPolicy {
  readonly prompt?: AccessRules | undefined;
  readonly resource?: AccessRules | undefined;
}

export type AccessKind = keyof AccessPolicy;

/** `tool_access.member.<tenant>`: a tool policy block plus the tenant's `access:`. */
export interface TenantPolicy extends ToolPolicy {
  readonly access?: AccessPolicy | undefined;
}

/**
 * Whether one kind's rules let `key` (a prompt name, a resource URI or URI template) through: with
 * an allow list only its matches pass and the deny list is ignored, as for tools.
 */
export function accessRulesAllow(rules: AccessRules | undefined, key: string): boolean {
  if (!rules) return true;
  if (rules.allow_list.length > 0) return matchesAny(key, rules.allow_list);
  return !matchesAny(key, rules.deny_list);
}

/** Several `access:` blocks govern one item (server, its groups, the caller's tenant): all must allow. */
export function accessAllows(
  policies: readonly (AccessPolicy | undefined)[],
  kind: AccessKind,
  key: string,
): boolean {
  return policies.every((policy) => accessRulesAllow(policy?.[kind], key));
}
