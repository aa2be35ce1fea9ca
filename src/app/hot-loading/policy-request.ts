import type { GatewayError } from "../../domain/errors.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import { fieldIssues } from "../validation.js";

/** The tool policy lists of a `gateway_load` request (null or absent: not given). */
export interface PolicyRequest {
  readonly allow_tools?: readonly string[] | null | undefined;
  readonly deny_tools?: readonly string[] | null | undefined;
  readonly approval_tools?: readonly string[] | null | undefined;
}

/** A policy block in the configuration's shape (`tools:` of a server). */
export interface PolicyBlock {
  allow_list?: readonly string[];
  deny_list?: readonly string[];
  approval_list?: readonly string[];
}

export type PolicyParseResult =
  | { readonly ok: true; readonly policy: ToolPolicy }
  | { readonly ok: false; readonly issues: readonly { path: readonly PropertyKey[]; message: string }[] };

/**
 * The configuration's one parser of `tools:` policy blocks (spec 2 §2 rules), handed in by
 * `composition` so that a policy given to `gateway_load` obeys exactly the rules of the file.
 */
export type ToolPolicyParser = (block: PolicyBlock) => PolicyParseResult;

/** Spec 2 §4: `approval_tools` is refused when no approval gate exists to decide held calls. */
export const APPROVAL_REFUSED =
  "is refused: no approval gate is configured, so a held call could never be decided";

const REQUEST_FIELD: Record<string, string> = {
  allow_list: "allow_tools",
  deny_list: "deny_tools",
  approval_list: "approval_tools",
};

/**
 * Checks the policy lists of a load before anything happens, returning the policy to install
 * (undefined when neither list was given). Throws a `ValidationError` naming each refused field
 * (`allow_tools.0`) and its rule, as the configuration would for the same block.
 */
export function validatePolicyRequest(
  request: PolicyRequest,
  parse: ToolPolicyParser,
  approvalsAvailable: boolean,
): ToolPolicy | undefined {
  const issues: { field: string; rule: string }[] = [];
  const approvals =
    request.approval_tools && request.approval_tools.length > 0 ? request.approval_tools : null;
  if (approvals && !approvalsAvailable) issues.push({ field: "approval_tools", rule: APPROVAL_REFUSED });
  const block: PolicyBlock = {};
  if (request.allow_tools != null) block.allow_list = request.allow_tools;
  if (request.deny_tools != null) block.deny_list = request.deny_tools;
  if (approvals && approvalsAvailable) block.approval_list = approvals;
  let policy: ToolPolicy | undefined;
  if (block.allow_list !== undefined || block.deny_list !== undefined || block.approval_list !== undefined) {
    const parsed = parse(block);
    if (parsed.ok) {
      policy = {
        allow_list: parsed.policy.allow_list,
        deny_list: parsed.policy.deny_list,
        approval_list: parsed.policy.approval_list,
      };
    } else {
      for (const issue of parsed.issues) {
        const [head, ...rest] = issue.path.map(String);
        const field = [REQUEST_FIELD[head ?? ""] ?? head ?? "(policy)", ...rest].join(".");
        issues.push({ field, rule: issue.message });
      }
    }
  }
  if (issues.length > 0) throw refusal(issues);
  return policy;
}

function refusal(issues: { field: string; rule: string }[]): GatewayError {
  return fieldIssues(issues);
}
