import type { DiscoveryMode } from "./discovery-mode.js";

/** One server a scan reported, reduced to what the plan compares. */
export interface Sighting {
  readonly name: string;
  readonly fingerprint: string;
}

/** What one source holds before the cycle, each map from server name to fingerprint. */
export interface SourceHoldings {
  /** Servers this source registered (the fingerprint they were registered with). */
  readonly registered: ReadonlyMap<string, string>;
  /** Servers waiting in pending (auto-registration off). */
  readonly pending: ReadonlyMap<string, string>;
  /** Servers of this source held in quarantine. */
  readonly quarantined: ReadonlyMap<string, string>;
  /**
   * Quarantined names whose reason passes by itself (a cap, a rate window, an endpoint not up yet):
   * found again with the same definition, they are tried again rather than left for an operator.
   */
  readonly retrying?: ReadonlySet<string>;
}

export interface PlanSettings {
  readonly mode: DiscoveryMode;
  /** `discovery.auto_register`: false holds new and changed servers in pending. */
  readonly autoRegister: boolean;
}

/**
 * What the cycle does with one name. `register` and `update` are candidates: the application still
 * validates them (schema, name ownership, limits, health probe) and quarantines or drops a failure.
 *
 * - `register`: new (or changed while quarantined), auto-registration on.
 * - `update`: registered by this source, definition changed, auto-registration on.
 * - `hold`: new or changed with auto-registration off: enters pending (again, when it changed).
 * - `review`: pending and seen again unchanged by a later cycle: moves to quarantine for an
 *   operator's approval (approve acts on quarantined names only, spec 1 "Discovery").
 * - `deregister`: registered by an authoritative source that no longer reports it.
 * - `release`: pending or quarantined and no longer reported (or reverted to what is registered):
 *   forgotten.
 */
export type CycleDecision =
  | { readonly action: "register" | "update" | "hold" | "review" | "deregister"; readonly name: string }
  | { readonly action: "release"; readonly name: string; readonly from: "pending" | "quarantine" };

/**
 * Decides a cycle of one source from what it held and what a successful scan saw. Names are
 * unique in `seen` (the caller drops repeats). Unchanged servers get no decision.
 *
 * Guaranteed: at most one decision per name, except `release` from pending or quarantine that
 * accompanies the name's other decision; `additive` never deregisters; only names that were seen
 * or held appear.
 */
export function planCycle(
  holdings: SourceHoldings,
  seen: readonly Sighting[],
  settings: PlanSettings,
): CycleDecision[] {
  const decisions: CycleDecision[] = [];
  const seenNames = new Set<string>();
  for (const { name, fingerprint } of seen) {
    seenNames.add(name);
    const registered = holdings.registered.get(name);
    const pending = holdings.pending.get(name);
    const quarantined = holdings.quarantined.get(name);
    if (registered === fingerprint) {
      // Reverted to what runs: a newer version waiting for review is moot.
      if (pending !== undefined) decisions.push({ action: "release", name, from: "pending" });
      if (quarantined !== undefined) decisions.push({ action: "release", name, from: "quarantine" });
      continue;
    }
    // Held for an operator with this very definition: nothing to do until they decide.
    if (quarantined === fingerprint && !holdings.retrying?.has(name)) continue;
    if (pending === fingerprint) {
      decisions.push({ action: "review", name });
      continue;
    }
    if (!settings.autoRegister) decisions.push({ action: "hold", name });
    else decisions.push({ action: registered === undefined ? "register" : "update", name });
  }
  for (const name of holdings.registered.keys()) {
    if (!seenNames.has(name) && settings.mode === "authoritative")
      decisions.push({ action: "deregister", name });
  }
  for (const name of holdings.pending.keys()) {
    if (!seenNames.has(name)) decisions.push({ action: "release", name, from: "pending" });
  }
  for (const name of holdings.quarantined.keys()) {
    if (!seenNames.has(name)) decisions.push({ action: "release", name, from: "quarantine" });
  }
  return decisions;
}
