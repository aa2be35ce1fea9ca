import { type AgentPolicyEntry, ALL_SERVERS, compileAgentPolicy } from "../../domain/policy/agent-policy.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";

/**
 * The tool policy pushed through `POST /agent/policy`: a runtime layer of this replica, replaced as a
 * whole by each push whose `version` is not older than the one in force; not persisted (the agent
 * pushes again after a restart).
 */
export class AgentPolicies {
  private compiled = new Map<string, ToolPolicy>();
  private current = { version: 0, entries: 0 };

  get version(): number {
    return this.current.version;
  }

  /** Replaces the pushed policy. False (nothing changed) when `version` is older than the current. */
  replace(entries: readonly AgentPolicyEntry[], version: number): boolean {
    if (version < this.current.version) return false;
    this.compiled = compileAgentPolicy(entries);
    this.current = { version, entries: entries.length };
    return true;
  }

  /** The pushed policies over a call to `serverId` governed by `groups`: theirs and those for `*`. */
  policiesOver(serverId: string, groups: readonly string[]): ToolPolicy[] {
    if (this.compiled.size === 0) return [];
    return [ALL_SERVERS, serverId, ...groups]
      .map((id) => this.compiled.get(id))
      .filter((policy): policy is ToolPolicy => policy !== undefined);
  }
}
