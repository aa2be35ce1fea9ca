/**
 * How a source's scans are read (spec 1 "Discovery source"): `additive` only ever adds and
 * updates, so a server the source stops reporting stays registered; `authoritative` makes the
 * source the truth, so a server it stops reporting is deregistered.
 */
export const DISCOVERY_MODES = ["additive", "authoritative"] as const;
export type DiscoveryMode = (typeof DISCOVERY_MODES)[number];

export function isDiscoveryMode(value: unknown): value is DiscoveryMode {
  return (DISCOVERY_MODES as readonly unknown[]).includes(value);
}

/** The source types of spec 1; a configured source's id is its type (one source per type). */
export const DISCOVERY_SOURCE_TYPES = ["docker", "kubernetes", "filesystem", "entrypoint"] as const;
export type DiscoverySourceKind = (typeof DISCOVERY_SOURCE_TYPES)[number];

export function isDiscoverySourceKind(value: unknown): value is DiscoverySourceKind {
  return (DISCOVERY_SOURCE_TYPES as readonly unknown[]).includes(value);
}
