/**
 * Digest pinning (spec 2 "Digest pinning (`tool_projection`)"): which pin governs a call to a tool,
 * whether a listed digest honours it, and which drifts were already reported.
 */

/** What a mismatch does: `block` refuses the call, `warn` and `audit` serve it and report it. */
export type DigestEnforcement = "audit" | "warn" | "block";

/** What a call to an unpinned tool of a pinned server does (`DigestUnknownPolicy`). */
export type UnknownToolPolicy = "block" | "warn" | "allow_unverified";

/** Tool name to 64 lowercase hex characters. */
export type PinMap = Readonly<Record<string, string>>;

/** One `tool_projection` block, as declared on a server, a group or a group member. */
export interface PinBlock {
  readonly digest_enforcement: DigestEnforcement;
  readonly unknown_tool_policy: UnknownToolPolicy;
  /** Pins for every caller, anonymous included. */
  readonly pins: PinMap;
  /** Per-tenant pins; they win over `pins`. */
  readonly tenant_overrides: Readonly<Record<string, { readonly pins: PinMap }>>;
}

/** A block and the server or group that declares it. */
export interface PinSource {
  readonly declared_on: string;
  readonly block: PinBlock;
}

/** The pin that governs one tool for one caller. */
export interface Pin {
  readonly digest: string;
  /** The tenant of a per-tenant pin; null for a pin of every caller. */
  readonly tenant_id: string | null;
  readonly enforcement: DigestEnforcement;
  /** The server or group whose block declares it. */
  readonly declared_on: string;
}

export type PinVerdict =
  /** No block over the server declares a pin: nothing to check. */
  | { readonly kind: "unpinned" }
  | { readonly kind: "match"; readonly pin: Pin }
  | { readonly kind: "mismatch"; readonly pin: Pin; readonly observed: string }
  /** The server is pinned but this tool has no pin for this caller. */
  | { readonly kind: "unknown"; readonly policy: UnknownToolPolicy };

/** Whether a block declares at least one pin, for every caller or for a tenant. */
export function declaresPins(block: PinBlock): boolean {
  if (Object.keys(block.pins).length > 0) return true;
  return Object.values(block.tenant_overrides).some((override) => Object.keys(override.pins).length > 0);
}

/**
 * The pin of `tool` for a caller of `tenant` (null: no tenant). Sources are given most specific
 * first (the server's own block, then those of its groups). A per-tenant pin of any source wins over
 * every pin for all callers; within a kind, the first source that pins the tool gives the pin.
 */
export function resolvePin(sources: readonly PinSource[], tool: string, tenant: string | null): Pin | null {
  if (tenant !== null) {
    for (const { declared_on, block } of sources) {
      const pins = ownValue(block.tenant_overrides, tenant)?.pins;
      const pinned = pins ? ownValue(pins, tool) : undefined;
      if (pinned !== undefined)
        return { digest: pinned, tenant_id: tenant, enforcement: block.digest_enforcement, declared_on };
    }
  }
  for (const { declared_on, block } of sources) {
    const pinned = ownValue(block.pins, tool);
    if (pinned !== undefined)
      return { digest: pinned, tenant_id: null, enforcement: block.digest_enforcement, declared_on };
  }
  return null;
}

/**
 * The unknown-tool policy of a pinned server: that of the most specific source declaring pins.
 * Null when no source declares any pin (the server is not pinned).
 */
export function unknownToolPolicy(sources: readonly PinSource[]): UnknownToolPolicy | null {
  return sources.find(({ block }) => declaresPins(block))?.block.unknown_tool_policy ?? null;
}

/** The verdict on a call to `tool`, listed with digest `observed`, by a caller of `tenant`. */
export function pinVerdict(
  sources: readonly PinSource[],
  tool: string,
  tenant: string | null,
  observed: string,
): PinVerdict {
  const policy = unknownToolPolicy(sources);
  if (policy === null) return { kind: "unpinned" };
  const pin = resolvePin(sources, tool, tenant);
  if (!pin) return { kind: "unknown", policy };
  return pin.digest === observed ? { kind: "match", pin } : { kind: "mismatch", pin, observed };
}

/** One pin to compare with a listing: every caller's pin, and each tenant's that differs from it. */
export interface PinCheck {
  readonly tool: string;
  readonly pin: Pin;
  readonly observed: string;
}

/**
 * Every pin that governs a tool of `listing`: the pin for all callers (when there is one) and the
 * pin of each tenant with an override for the tool. A tool that is not listed has nothing to check.
 */
export function pinChecks(
  sources: readonly PinSource[],
  listing: readonly { readonly name: string; readonly digest: string }[],
): PinCheck[] {
  const checks: PinCheck[] = [];
  for (const tool of listing) {
    const shared = resolvePin(sources, tool.name, null);
    if (shared) checks.push({ tool: tool.name, pin: shared, observed: tool.digest });
    const tenants = new Set<string>();
    for (const { block } of sources) {
      for (const [tenant, override] of Object.entries(block.tenant_overrides)) {
        if (ownValue(override.pins, tool.name) !== undefined) tenants.add(tenant);
      }
    }
    for (const tenant of [...tenants].sort()) {
      const pin = resolvePin(sources, tool.name, tenant);
      if (pin && pin.tenant_id !== null) checks.push({ tool: tool.name, pin, observed: tool.digest });
    }
  }
  return checks;
}

/**
 * The drifts already reported, so that each is reported once: a drift is a pin of one server, tool
 * and scope (every caller, or one tenant) meeting a digest other than its own. Meeting another
 * wrong digest is a new drift; meeting the pinned digest again ends it.
 */
export class DriftLedger {
  /** Per server: the digest last reported for each drifted pin. */
  private readonly reported = new Map<string, Map<string, string>>();

  /**
   * Records the outcome of one comparison. True when it is a drift not reported yet: the caller
   * reports it now.
   */
  note(serverId: string, check: PinCheck): boolean {
    const key = JSON.stringify([check.tool, check.pin.tenant_id, check.pin.digest]);
    const reported = this.reported.get(serverId);
    if (check.observed === check.pin.digest) {
      reported?.delete(key);
      return false;
    }
    if (reported?.get(key) === check.observed) return false;
    if (reported) reported.set(key, check.observed);
    else this.reported.set(serverId, new Map([[key, check.observed]]));
    return true;
  }

  /** Forgets the drifts of a server (removed, or registered anew). */
  forget(serverId: string): void {
    this.reported.delete(serverId);
  }
}

function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
