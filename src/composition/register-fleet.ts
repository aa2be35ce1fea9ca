import { redactUrl } from "../app/config-state/redact-secrets.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { GatewayConfig, GroupEntry, ServerEntry } from "../config/schema.js";
import { isGroupEntry } from "../config/schema.js";
import type { ToolPolicy } from "../domain/policy/tool-policy.js";
import { specFromEntry } from "./server-specs.js";

/**
 * Registers (without starting) the servers and groups the configuration declares, then those
 * registered earlier through REST or by discovery, which never replace a declared id, and restores
 * the permanent blocks first (spec 1 §3: a server registered under a blocked id starts blocked).
 * Returns the declared ids (REST may not delete them).
 */
export async function registerFleet(
  config: GatewayConfig,
  deps: {
    fleet: Fleet;
    groups: GroupService;
    repositories: StoreRepositories;
    logger: Logger;
    /** Directory of the configuration file: declared local servers run there. */
    configDir: string | undefined;
  },
): Promise<Set<string>> {
  const { fleet, groups, logger } = deps;
  fleet.restoreBlocks((await deps.repositories.blockedServers.list()).map((b) => b.mcp_server_id));
  const declared = new Set<string>();
  const groupEntries: [string, GroupEntry][] = [];
  const declaredServers: [string, ServerEntry][] = [];
  for (const [id, entry] of Object.entries(config.mcp_servers)) {
    if (isGroupEntry(entry)) {
      groupEntries.push([id, entry]);
      // Inline members are servers of their own, declared by the file like any other.
      for (const member of entry.members)
        if (member.kind === "inline") declaredServers.push([member.id, member.server]);
    } else {
      declaredServers.push([id, entry]);
    }
  }
  for (const [id, entry] of declaredServers) {
    const spec = specFromEntry(id, entry, deps.configDir);
    if (spec.endpoint) {
      // Spec 2 §2: a declared endpoint is trusted; say so once, so operators know the guard skips it
      // (a warning: it must show at the usual levels), without the URL's secrets.
      logger.warn(
        { mcp_server_id: id, endpoint: redactUrl(spec.endpoint) },
        "trusted endpoint from configuration: SSRF policy not applied",
      );
    }
    fleet.register(spec);
    declared.add(id);
  }
  for (const [id, entry] of groupEntries) {
    const memberPolicies = new Map<string, ToolPolicy>();
    for (const member of entry.members) {
      if (member.kind === "reference" && member.tools)
        memberPolicies.set(member.id, member.tools as ToolPolicy);
    }
    groups.register({ group_id: id, ...entry }, "config", entry.auto_start, {
      ...(entry.tools && { group: entry.tools as ToolPolicy }),
      members: memberPolicies,
    });
    declared.add(id);
  }
  for (const record of await deps.repositories.serverConfigs.list()) {
    if (fleet.has(record.id)) {
      logger.warn(
        { mcp_server_id: record.id },
        "a server registered through REST has the id of a declared one; kept the declared one",
      );
      continue;
    }
    // Discovered servers keep their provenance (exempt from the SSRF guard, taken over by the cycle).
    fleet.register({ ...record.spec, source: record.spec.source === "discovery" ? "discovery" : "api" });
  }
  for (const definition of await deps.repositories.groupConfigs.list()) {
    if (groups.has(definition.group_id) || fleet.has(definition.group_id)) {
      logger.warn(
        { group_id: definition.group_id },
        "a group created through REST has the id of a declared one; kept the declared one",
      );
      continue;
    }
    groups.register(definition, "api", false);
  }
  return declared;
}
