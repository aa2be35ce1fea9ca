import type { DomainEvent } from "../../domain/events.js";
import { type AgentPolicyEntry, ALL_SERVERS, compileAgentPolicy } from "../../domain/policy/agent-policy.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";

/**
 * The tool policy pushed through `POST /agent/policy`: a runtime layer, replaced as a whole by each
 * push whose `version` is not older than the one in force; not persisted (the agent pushes again
 * after a restart). Replicas sharing an event log put a peer's push in force as its event arrives
 * (`applyPeerChange`), under the same version rule.
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

  /**
   * Puts in force the policy another replica was pushed, from its `ToolPolicyChanged` event (an
   * older version than the one in force changes nothing). True when the event carried a push.
   */
  applyPeerChange(event: DomainEvent): boolean {
    if (event.type !== "ToolPolicyChanged" || event.agent_policy === undefined) return false;
    this.replace(event.agent_policy.tool_policies, event.agent_policy.version);
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
