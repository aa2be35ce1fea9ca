import type { RegistryServer } from "../ports/mcp-registry.js";

/** Entries shown in an `ambiguous` answer: enough to choose from, short enough to read. */
export const MAX_MATCHES = 20;

export type NameMatch =
  | { readonly kind: "one"; readonly server: RegistryServer }
  | { readonly kind: "ambiguous"; readonly matches: readonly RegistryServer[]; readonly exact: boolean }
  | { readonly kind: "none" };

/** The part after the namespace: `weather` of `io.github.owner/weather`. */
export function shortName(registryName: string): string {
  const slash = registryName.lastIndexOf("/");
  return slash === -1 ? registryName : registryName.slice(slash + 1);
}

/**
 * Which registry entry `name` identifies among a search's answer, comparing case-insensitively:
 * 1. the entry whose full name is `name`;
 * 2. otherwise the one entry whose short name (after the slash) is `name`; several such entries
 *    (same short name in different namespaces) are ambiguous;
 * 3. otherwise every entry the search returned is a partial match, never loaded on a guess: the
 *    caller gets them as `ambiguous` and names one exactly.
 * Deleted entries are never matched (the registry hides them too), and of several versions of one
 * server only the latest counts.
 */
export function matchName(name: string, found: readonly RegistryServer[]): NameMatch {
  const wanted = name.trim().toLowerCase();
  const servers = latestOnly(found.filter((server) => server.official?.status !== "deleted"));
  const exact = servers.filter((server) => server.name.toLowerCase() === wanted);
  if (exact.length === 1 && exact[0]) return { kind: "one", server: exact[0] };
  const short = servers.filter((server) => shortName(server.name).toLowerCase() === wanted);
  if (short.length === 1 && short[0]) return { kind: "one", server: short[0] };
  if (short.length > 1) return { kind: "ambiguous", matches: short, exact: true };
  if (servers.length > 0) return { kind: "ambiguous", matches: servers, exact: false };
  return { kind: "none" };
}

/** One entry per server name: the one the registry marks latest, else the first listed. */
function latestOnly(servers: readonly RegistryServer[]): RegistryServer[] {
  const byName = new Map<string, RegistryServer>();
  for (const server of servers) {
    const key = server.name.toLowerCase();
    const known = byName.get(key);
    if (known === undefined || (known.official?.isLatest !== true && server.official?.isLatest === true)) {
      byName.set(key, server);
    }
  }
  return [...byName.values()];
}
