import type {
  AgentPolicyPush,
  AgentPolicyRepository,
  StoredAgentPolicy,
} from "../../../app/ports/agent-policy-repository.js";
import { jsonCopy } from "./memory-helpers.js";

export class MemoryAgentPolicyRepository implements AgentPolicyRepository {
  private current: StoredAgentPolicy | undefined;

  async replace(push: AgentPolicyPush): Promise<{ applied: boolean; version: number }> {
    if (this.current && push.version < this.current.version)
      return { applied: false, version: this.current.version };
    this.current = jsonCopy({
      version: push.version,
      tool_policies: push.tool_policies,
      pushed_by: push.pushed_by,
      pushed_at: push.pushed_at,
      revision: (this.current?.revision ?? 0) + 1,
    });
    return { applied: true, version: push.version };
  }

  async get(): Promise<StoredAgentPolicy | undefined> {
    return this.current && jsonCopy(this.current);
  }

  async revision(): Promise<number> {
    return this.current?.revision ?? 0;
  }
}
