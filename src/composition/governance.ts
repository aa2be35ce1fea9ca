import type { GovernanceSettings } from "../app/governance/governance.js";
import { Governance } from "../app/governance/governance.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { GatewayConfig, ServerEntry } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import type { AccessPolicy, TenantPolicy } from "../domain/policy/access-policy.js";

/**
 * The governance parts of a configuration: `tool_access.member`, each server's `tool_access.member`
 * and `access` (inline group members included), each group's `access`, and `interceptors.validators`.
 * A reload applies them through `Governance.configure`.
 */
export function governanceSettings(config: GatewayConfig): GovernanceSettings {
  const serverTenants = new Map<string, ReadonlyMap<string, TenantPolicy>>();
  const access = new Map<string, AccessPolicy>();
  const addServer = (id: string, entry: ServerEntry) => {
    const members = Object.entries(entry.tool_access?.member ?? {});
    if (members.length > 0) serverTenants.set(id, new Map(members));
    if (entry.access) access.set(id, entry.access);
  };
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (!isGroupEntry(entry)) {
      addServer(id, entry);
      continue;
    }
    if (entry.access) access.set(id, entry.access);
    for (const member of entry.members) if (member.kind === "inline") addServer(member.id, member.server);
  }
  return {
    tenants: new Map(Object.entries(config.tool_access.member)),
    serverTenants,
    access,
    validators: config.interceptors.validators,
  };
}

/** The governance service of a gateway, with the shared records (stored policies, suspensions) read. */
export async function openGovernance(
  config: GatewayConfig,
  deps: { repositories: StoreRepositories; clock: Clock; logger: Logger },
): Promise<Governance> {
  const governance = new Governance(governanceSettings(config), deps);
  await governance.load();
  return governance;
}
