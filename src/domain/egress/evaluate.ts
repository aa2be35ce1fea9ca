import { utf8Length } from "../limits/utf8-length.js";
import { fnmatch } from "../policy/fnmatch.js";
import { type HeaderMatch, type L7Policy, RULE_PRECEDENCE, type RuleKind } from "./l7-policy.js";
import { type SecretPatternGroup, secretGroupsInArguments } from "./secret-patterns.js";

/** One tool call as the policy sees it. */
export interface EgressCall {
  readonly tool: string;
  readonly args: unknown;
  /** The call's `Mcp-Param-*` headers, names in lower case (`param-headers.ts`). */
  readonly paramHeaders: ReadonlyMap<string, string>;
}

export interface EgressVerdict {
  readonly action: RuleKind;
  /**
   * What decided, as `<section>.<kind>:<rule>`: `tools.deny:delete_*`,
   * `headers.requireApproval:Mcp-Param-Region`, `defaultAction:Deny`, `arguments.maxPayloadBytes`,
   * `arguments.secretPatterns:aws-keys`. Names rules and groups, never argument values.
   */
  readonly decidedBy: string;
  /** Why, in words: the finding that decided. */
  readonly reason: string;
  /** Every finding, in evaluation order; safe to log (no argument value appears). */
  readonly reasons: readonly string[];
  /** The secret pattern groups found in the arguments. */
  readonly secretGroups: readonly SecretPatternGroup[];
  /** UTF-8 bytes of the arguments as compact JSON; null when they cannot be encoded. */
  readonly payloadBytes: number | null;
}

interface RuleHit {
  readonly kind: RuleKind;
  readonly decidedBy: string;
  readonly reason: string;
}

/**
 * The policy's verdict on one call. Order: the `tools` rules and the `headers` rules each give their
 * strongest match (deny, then requireApproval, then allow); the stronger of the two decides, and
 * `defaultAction` decides when neither matched. Then the arguments: over `maxPayloadBytes`, or
 * holding a secret of a listed group, the call is denied whatever the rules said; arguments that
 * cannot be encoded as JSON (which no upstream could be sent) are denied uninspected. The mode is not
 * applied here.
 */
export function evaluateEgress(policy: L7Policy, call: EgressCall): EgressVerdict {
  const reasons: string[] = [];
  const tool = toolHit(policy, call.tool);
  const header = headerHit(policy, call.paramHeaders);
  if (tool) reasons.push(tool.reason);
  if (header) reasons.push(header.reason);
  let decided: RuleHit = stronger(tool, header) ?? {
    kind: policy.defaultAction === "Allow" ? "allow" : "deny",
    decidedBy: `defaultAction:${policy.defaultAction}`,
    reason: `no tool or header rule matched tool '${call.tool}': defaultAction ${policy.defaultAction}`,
  };
  if (!tool && !header) reasons.push(decided.reason);

  const { secretPatterns, maxPayloadBytes } = policy.arguments;
  const json = encode(call.args);
  const payloadBytes = json === null ? null : utf8Length(json);
  const secretGroups = json === null ? [] : secretGroupsInArguments(call.args, secretPatterns);
  const violations: RuleHit[] = [];
  if (json === null) {
    violations.push({
      kind: "deny",
      decidedBy: "arguments",
      reason: "the arguments could not be encoded as JSON",
    });
  }
  if (maxPayloadBytes !== null && payloadBytes !== null && payloadBytes > maxPayloadBytes) {
    violations.push({
      kind: "deny",
      decidedBy: "arguments.maxPayloadBytes",
      reason: `the arguments are ${payloadBytes} bytes, over maxPayloadBytes ${maxPayloadBytes}`,
    });
  }
  for (const group of secretGroups) {
    violations.push({
      kind: "deny",
      decidedBy: `arguments.secretPatterns:${group}`,
      reason: `the arguments contain a secret of pattern group '${group}'`,
    });
  }
  for (const violation of violations) reasons.push(violation.reason);
  decided = violations[0] ?? decided;
  return {
    action: decided.kind,
    decidedBy: decided.decidedBy,
    reason: decided.reason,
    reasons,
    secretGroups,
    payloadBytes,
  };
}

function toolHit(policy: L7Policy, tool: string): RuleHit | null {
  for (const kind of RULE_PRECEDENCE) {
    const pattern = policy.tools[kind].find((glob) => fnmatch(tool, glob));
    if (pattern !== undefined) {
      return {
        kind,
        decidedBy: `tools.${kind}:${pattern}`,
        reason: `tool '${tool}' matched tools.${kind} '${pattern}'`,
      };
    }
  }
  return null;
}

function headerHit(policy: L7Policy, headers: ReadonlyMap<string, string>): RuleHit | null {
  if (headers.size === 0) return null;
  for (const kind of RULE_PRECEDENCE) {
    const match = policy.headers[kind].find((selector) => selects(selector, headers));
    if (match !== undefined) {
      return {
        kind,
        decidedBy: `headers.${kind}:${match.name}`,
        reason: `header ${match.name} matched headers.${kind}`,
      };
    }
  }
  return null;
}

function selects(selector: HeaderMatch, headers: ReadonlyMap<string, string>): boolean {
  const value = headers.get(selector.name.toLowerCase());
  return value !== undefined && selector.values.some((glob) => fnmatch(value, glob));
}

function stronger(a: RuleHit | null, b: RuleHit | null): RuleHit | null {
  if (!a || !b) return a ?? b;
  return RULE_PRECEDENCE.indexOf(b.kind) < RULE_PRECEDENCE.indexOf(a.kind) ? b : a;
}

/** Compact JSON of the arguments (as sent upstream), or null when they have none (cycles, BigInt). */
function encode(args: unknown): string | null {
  try {
    return JSON.stringify(args ?? {}) ?? null;
  } catch {
    return null;
  }
}
