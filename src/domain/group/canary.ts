/**
 * Canary routing: which tenants go to the canary member. Deterministic, so a tenant stays on the
 * same side across calls and replicas (no state, no randomness).
 *
 * - A tenant in `pinned_tenants` goes to its pinned member: pins win over the split.
 * - Otherwise a tenant goes to the canary when its bucket, FNV-1a 32-bit over the UTF-8 bytes of
 *   the tenant id modulo 10,000, is below `split_pct * 100`; 10,000 buckets honour fractional
 *   percentages to 0.01 % (the config allows any number in 0-100).
 * - A call without a tenant goes to the canary only when `split_pct` is 100: an anonymous caller
 *   cannot be kept on one side, so it stays on the stable members rather than flip between them.
 * - Everyone else is "stable": the group's strategy picks among the members other than the canary.
 *
 * Availability wins over placement: a pinned or canary member that cannot be picked falls through
 * to the stable members, and stable traffic uses the canary member when it is the only one left
 * (see `pick` in `group-model.ts`).
 */
export interface CanaryConfig {
  readonly member: string | null;
  /** 0-100. */
  readonly split_pct: number;
  /** Tenant id to member id. */
  readonly pinned_tenants: Readonly<Record<string, string>>;
}

export type CanaryRoute =
  | { readonly kind: "pinned"; readonly member_id: string }
  | { readonly kind: "canary"; readonly member_id: string }
  | { readonly kind: "stable" };

export const CANARY_BUCKETS = 10_000;

export function routeTenant(canary: CanaryConfig | null, tenant: string | null | undefined): CanaryRoute {
  if (canary === null) return { kind: "stable" };
  if (tenant != null && Object.hasOwn(canary.pinned_tenants, tenant)) {
    const pinned = canary.pinned_tenants[tenant];
    if (pinned !== undefined) return { kind: "pinned", member_id: pinned };
  }
  if (canary.member === null || canary.split_pct <= 0) return { kind: "stable" };
  const chosen =
    tenant == null
      ? canary.split_pct >= 100
      : canaryBucket(tenant) < canary.split_pct * (CANARY_BUCKETS / 100);
  return chosen ? { kind: "canary", member_id: canary.member } : { kind: "stable" };
}

/** The tenant's bucket in [0, 10,000). */
export function canaryBucket(tenant: string): number {
  return fnv1a32(tenant) % CANARY_BUCKETS;
}

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32-bit over the UTF-8 encoding of `text` (lone surrogates encode as U+FFFD, as TextEncoder does). */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  const mix = (byte: number) => {
    hash = Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
  };
  for (let i = 0; i < text.length; i++) {
    let code = text.codePointAt(i) ?? 0;
    if (code > 0xffff) i++;
    else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) mix(code);
    else if (code < 0x800) {
      mix(0xc0 | (code >> 6));
      mix(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      mix(0xe0 | (code >> 12));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    } else {
      mix(0xf0 | (code >> 18));
      mix(0x80 | ((code >> 12) & 0x3f));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    }
  }
  return hash;
}
