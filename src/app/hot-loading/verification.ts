import type { RegistryServer } from "../ports/mcp-registry.js";

export interface Verification {
  readonly verified: boolean;
  /** Why the entry is not verified; absent when it is. */
  readonly reason?: string;
}

/**
 * Whether the registry vouches for an entry. The official MCP registry publishes a server only
 * after its publisher proved ownership of the name's namespace (GitHub account or organisation for
 * `io.github.*`, DNS or HTTP challenge for a domain), and states each entry's lifecycle in
 * `_meta["io.modelcontextprotocol.registry/official"].status`. An entry is verified when that
 * metadata is present and says `active`. Without it (a registry that does not vouch for entries)
 * or with `deprecated` (the publisher withdrew it) it is not. Verification says who published the
 * entry, not that its code is safe.
 */
export function verificationOf(server: RegistryServer): Verification {
  const official = server.official;
  if (official === null) return { verified: false, reason: "the registry gives no official status for it" };
  if (official.status === "active") return { verified: true };
  const why = official.statusMessage ? `: ${official.statusMessage}` : "";
  return { verified: false, reason: `the registry marks it ${official.status}${why}` };
}
