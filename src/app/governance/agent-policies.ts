import { ALL_SERVERS, compileAgentPolicy } from "../../domain/policy/agent-policy.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type {
  AgentPolicyPush,
  AgentPolicyRepository,
  StoredAgentPolicy,
} from "../ports/agent-policy-repository.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import { SharedReader } from "./shared-reader.js";

/**
 * The tool policy pushed through `POST /agent/policy`: a runtime layer, replaced as a whole by each
 * push whose `version` is not older than the one in force. It is kept in the shared store, which
 * decides the version rule, so it outlives a restart and every replica sharing the store (one
 * started later too) enforces the last push: read at start, again within the configured age on
 * the call path (a small read of the revision, the policy itself only when it changed), and at
 * once when a peer's `ToolPolicyChanged` event announces a push.
 */
export class AgentPolicies {
  private compiled = new Map<string, ToolPolicy>();
  /** The version in force, and the store's revision it came from (-1: applied, not read back yet). */
  private current = { version: 0, revision: 0 };
  private readonly reader: SharedReader<StoredAgentPolicy | undefined>;

  constructor(
    private readonly repository: AgentPolicyRepository,
    deps: { clock: Clock; logger: Logger; maxAgeMs: number },
  ) {
    this.reader = new SharedReader(
      async () =>
        (await repository.revision()) === this.current.revision ? undefined : await repository.get(),
      (stored) => {
        if (stored) this.putInForce(stored, stored.revision);
      },
      { ...deps, what: "agent_policy" },
    );
  }

  get version(): number {
    return this.current.version;
  }

  /** Re-reads the store when the copy is older than the configured age. */
  fresh(): Promise<void> | undefined {
    return this.reader.fresh();
  }

  /** Re-reads the store now: at start, and when a peer announced a push. */
  reload(): Promise<void> {
    return this.reader.reload();
  }

  /**
   * Replaces the pushed policy. Not applied (nothing changed) when the version in force in the
   * store is newer; `version` is the version in force after the push.
   */
  async replace(push: AgentPolicyPush): Promise<{ applied: boolean; version: number }> {
    const outcome = await this.repository.replace(push);
    // In force here at once; the read that follows brings the store's revision (and a newer push
    // made through a peer meanwhile, if any).
    if (outcome.applied) this.putInForce(push, -1);
    await this.reader.reload();
    return outcome;
  }

  /** How many servers (and `*`) the pushed policy names. */
  get size(): number {
    return this.compiled.size;
  }

  /** The pushed policies over a call to `serverId` governed by `groups`: theirs and those for `*`. */
  policiesOver(serverId: string, groups: readonly string[]): ToolPolicy[] {
    if (this.compiled.size === 0) return [];
    return [ALL_SERVERS, serverId, ...groups]
      .map((id) => this.compiled.get(id))
      .filter((policy): policy is ToolPolicy => policy !== undefined);
  }

  private putInForce(policy: AgentPolicyPush, revision: number): void {
    this.compiled = compileAgentPolicy(policy.tool_policies);
    this.current = { version: policy.version, revision };
  }
}
