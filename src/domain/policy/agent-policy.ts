import type { ToolPolicy } from "./tool-policy.js";

/** `action` of a `POST /agent/policy` entry. */
export const AGENT_ACTIONS = ["allow", "deny", "require-approval", "audit"] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];

/** The server id of an entry that applies to every server and group. */
export const ALL_SERVERS = "*";

/** One entry of `tool_policies` (spec 1 `POST /agent/policy`). */
export interface AgentPolicyEntry {
  /** A server or group id, or `*` for every one. */
  readonly mcp_server_id: string;
  readonly action: AgentAction;
  /** An fnmatch glob on the bare tool name. */
  readonly tool_name: string;
  readonly approval_timeout_seconds?: number | undefined;
}

/**
 * The tool policies a pushed agent policy adds, by target id (`*` included): the entries of one
 * target become one policy block, `allow` entries its allow list, `deny` its deny list,
 * `require-approval` its approval list. `audit` changes no verdict (every call is audited anyway),
 * so a target with only `audit` entries gets no policy. The block then follows the rules of every
 * other: with an allow list only its matches pass.
 */
export function compileAgentPolicy(entries: readonly AgentPolicyEntry[]): Map<string, ToolPolicy> {
  const lists = new Map<string, { allow_list: string[]; deny_list: string[]; approval_list: string[] }>();
  for (const entry of entries) {
    if (entry.action === "audit") continue;
    let policy = lists.get(entry.mcp_server_id);
    if (!policy) {
      policy = { allow_list: [], deny_list: [], approval_list: [] };
      lists.set(entry.mcp_server_id, policy);
    }
    const list =
      entry.action === "allow"
        ? policy.allow_list
        : entry.action === "deny"
          ? policy.deny_list
          : policy.approval_list;
    list.push(entry.tool_name);
  }
  return new Map(lists);
}
