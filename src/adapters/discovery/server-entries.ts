import type { DiscoveredServer } from "../../app/ports/discovery-source.js";
import { nameProblem, quote } from "./discovered-name.js";

/** The key an entry may carry besides the configuration's server keys. */
export const ENTRY_GROUP_KEY = "group";

/**
 * Reads an `mcp_servers` mapping found in a definition file or a package.json: each entry in the
 * configuration file's `mcp_servers.<id>` shape, plus an optional `group` naming the group it asks
 * to join (taken out of the definition, which the configuration schema validates later). Returns
 * the servers it could read and a problem line for every entry it could not.
 */
export function readServerEntries(
  entries: unknown,
  connectionInfo: Readonly<Record<string, unknown>>,
): { servers: DiscoveredServer[]; problems: string[] } {
  if (!isMapping(entries))
    return { servers: [], problems: ["mcp_servers must be a mapping of server ids to definitions"] };
  const problems: string[] = [];
  const servers: DiscoveredServer[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const where = `mcp_servers.${name}`;
    const badName = nameProblem(name);
    if (badName) {
      problems.push(`${where}: ${quote(name)} ${badName}`);
      continue;
    }
    if (!isMapping(entry)) {
      problems.push(`${where} must be a mapping of server keys (mode, command, endpoint, ...)`);
      continue;
    }
    if (entry.mode === "group") {
      problems.push(`${where}: groups are declared in the configuration file, not discovered`);
      continue;
    }
    const { [ENTRY_GROUP_KEY]: group, ...definition } = entry;
    if (group !== undefined && (typeof group !== "string" || nameProblem(group) !== undefined)) {
      problems.push(`${where}.${ENTRY_GROUP_KEY} must be a group id (letters, digits, '_', '-', '.')`);
      continue;
    }
    servers.push({ name, definition, connectionInfo, ...(group === undefined ? {} : { group }) });
  }
  return { servers, problems };
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
