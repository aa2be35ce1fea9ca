import type {
  ToolAccessPolicyRecord,
  ToolAccessPolicyRepository,
  ToolAccessScope,
} from "../../../app/ports/tool-access-policy-repository.js";
import { byText, jsonCopy } from "./memory-helpers.js";

const keyOf = (scope: ToolAccessScope, targetId: string): string => JSON.stringify([scope, targetId]);

export class MemoryToolAccessPolicyRepository implements ToolAccessPolicyRepository {
  private readonly policies = new Map<string, ToolAccessPolicyRecord>();

  async get(scope: ToolAccessScope, targetId: string): Promise<ToolAccessPolicyRecord | undefined> {
    const policy = this.policies.get(keyOf(scope, targetId));
    return policy && jsonCopy(policy);
  }

  async set(policy: ToolAccessPolicyRecord): Promise<void> {
    this.policies.set(keyOf(policy.scope, policy.target_id), jsonCopy(policy));
  }

  async delete(scope: ToolAccessScope, targetId: string): Promise<boolean> {
    return this.policies.delete(keyOf(scope, targetId));
  }

  async list(scope?: ToolAccessScope): Promise<ToolAccessPolicyRecord[]> {
    return [...this.policies.values()]
      .filter((p) => scope === undefined || p.scope === scope)
      .sort((a, b) => byText(a.scope, b.scope) || byText(a.target_id, b.target_id))
      .map(jsonCopy);
  }
}
