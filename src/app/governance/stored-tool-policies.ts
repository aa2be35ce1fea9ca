import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type {
  ToolAccessPolicyRecord,
  ToolAccessPolicyRepository,
  ToolAccessScope,
} from "../ports/tool-access-policy-repository.js";
import { SharedReader } from "./shared-reader.js";

/** Separates group and member in a `member` target id: `<group_id>:<member_id>`. */
export const MEMBER_TARGET_SEPARATOR = ":";

/**
 * The tool access policies set through `/auth/policies` (spec 1 "Tool access policy (REST form)"),
 * as the call path reads them: a local copy of the shared store.
 *
 * Targets: `provider` names a server; `group` a group; `member` either `<group_id>:<member_id>` (that
 * member when reached through that group) or a bare `<member_id>` (that server when reached through
 * any group). Each stored policy is one more policy block over the call, combined with the others
 * by the usual rule: any deny denies.
 */
export class StoredToolPolicies {
  private byKey = new Map<string, ToolPolicy>();
  private readonly reader: SharedReader<ToolAccessPolicyRecord[]>;

  constructor(
    repository: ToolAccessPolicyRepository,
    deps: { clock: Clock; logger: Logger; maxAgeMs: number },
  ) {
    this.reader = new SharedReader(
      () => repository.list(),
      (records) => {
        this.byKey = new Map(
          records.map((record) => [key(record.scope, record.target_id), asPolicy(record)]),
        );
      },
      { ...deps, what: "tool_access_policies" },
    );
  }

  /** Re-reads the store when the copy is older than the configured age. */
  fresh(): Promise<void> | undefined {
    return this.reader.fresh();
  }

  /** Re-reads the store now: after a policy was set or deleted through this replica. */
  reload(): Promise<void> {
    return this.reader.reload();
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The stored policies over a call reaching `serverId`, governed by `groups` (possibly none). */
  policiesOver(serverId: string, groups: readonly string[]): ToolPolicy[] {
    if (this.byKey.size === 0) return [];
    const keys = [key("provider", serverId)];
    for (const group of groups) {
      keys.push(key("group", group), key("member", `${group}${MEMBER_TARGET_SEPARATOR}${serverId}`));
    }
    if (groups.length > 0) keys.push(key("member", serverId));
    return keys.map((k) => this.byKey.get(k)).filter((policy): policy is ToolPolicy => policy !== undefined);
  }
}

function key(scope: ToolAccessScope, target: string): string {
  return `${scope}\u0000${target}`;
}

/** The REST form has no approval list: its policies expose or hide, never hold. */
function asPolicy(record: ToolAccessPolicyRecord): ToolPolicy {
  return { allow_list: [...record.allow_list], deny_list: [...record.deny_list], approval_list: [] };
}
