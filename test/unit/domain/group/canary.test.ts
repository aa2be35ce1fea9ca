import { describe, expect, it } from "vitest";
import { CANARY_BUCKETS, canaryBucket, fnv1a32, routeTenant } from "../../../../src/domain/group/canary.js";
import { pick } from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot } from "../../../../src/domain/group/group-snapshot.js";
import type { MemberStatuses } from "../../../../src/domain/group/member-status.js";
import { allIn, group, noRandom, states } from "./fixtures.js";

describe("FNV-1a 32-bit", () => {
  // Published FNV-1a test vectors (ASCII), plus UTF-8 for non-ASCII text.
  const vectors: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  it.each(vectors)("hashes %j to the reference value", (text, expected) => {
    expect(fnv1a32(text)).toBe(expected);
  });

  it("hashes the UTF-8 bytes of non-ASCII text", () => {
    // "é" is C3 A9 in UTF-8, "😀" is F0 9F 98 80.
    const bytes = (list: number[]) => list.reduce((h, b) => Math.imul(h ^ b, 0x01000193) >>> 0, 0x811c9dc5);
    expect(fnv1a32("é")).toBe(bytes([0xc3, 0xa9]));
    expect(fnv1a32("😀")).toBe(bytes([0xf0, 0x9f, 0x98, 0x80]));
  });
});

describe("canary routing", () => {
  const canary = {
    member: "canary",
    split_pct: 30,
    pinned_tenants: { acme: "stable-2", "beta-co": "canary" },
  };
  const tenants = Array.from({ length: 5_000 }, (_, i) => `tenant-${i}`);

  it("sends a tenant to the same side every time", () => {
    for (const tenant of tenants.slice(0, 200)) {
      expect(routeTenant(canary, tenant)).toEqual(routeTenant(canary, tenant));
    }
  });

  it("sends about split_pct of tenants to the canary", () => {
    const share = tenants.filter((t) => routeTenant(canary, t).kind === "canary").length / tenants.length;
    expect(Math.abs(share - 0.3)).toBeLessThanOrEqual(0.02);
  });

  it("decides by the tenant's bucket", () => {
    const tenant = tenants.find((t) => canaryBucket(t) < 3_000) ?? "";
    const other = tenants.find((t) => canaryBucket(t) >= 3_000) ?? "";
    expect(routeTenant(canary, tenant)).toEqual({ kind: "canary", member_id: "canary" });
    expect(routeTenant(canary, other)).toEqual({ kind: "stable" });
    expect(canaryBucket(tenant)).toBe(fnv1a32(tenant) % CANARY_BUCKETS);
  });

  it("grows the canary side monotonically: a tenant in at 10% stays in at 50%", () => {
    const at = (pct: number) =>
      new Set(tenants.filter((t) => routeTenant({ ...canary, split_pct: pct }, t).kind === "canary"));
    const ten = at(10);
    const fifty = at(50);
    for (const t of ten) expect(fifty.has(t)).toBe(true);
  });

  const cases: [string, number, string | null | undefined, string][] = [
    ["a pin wins over the split (to a stable member)", 100, "acme", "pinned"],
    ["a pin wins over the split (to the canary)", 0, "beta-co", "pinned"],
    ["split 0 sends nobody else to the canary", 0, "tenant-1", "stable"],
    ["split 100 sends every tenant to the canary", 100, "tenant-1", "canary"],
    ["a tenantless call stays stable below 100", 99, null, "stable"],
    ["a tenantless call goes to the canary at 100", 100, undefined, "canary"],
    ["a tenant named like an object key is not a pin", 0, "constructor", "stable"],
  ];
  it.each(cases)("%s", (_name, split, tenant, kind) => {
    expect(routeTenant({ ...canary, split_pct: split }, tenant).kind).toBe(kind);
  });
});

describe("canary picks", () => {
  function canaryGroup(split: number): GroupSnapshot {
    return group(["s1", "s2", "c"], {
      canary: { member: "c", split_pct: split, pinned_tenants: { pinned: "s2", early: "c" } },
    });
  }
  const ready = (g: GroupSnapshot) => allIn(g, "ready");
  const pickFor = (g: GroupSnapshot, tenant: string | null, memberStates: MemberStatuses = ready(g)) =>
    pick(g, { tenant, random: noRandom, memberStates });

  it("keeps stable traffic off the canary member", () => {
    let g = canaryGroup(0);
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const result = pickFor(g, `tenant-${i}`);
      if ("member_id" in result) seen.add(result.member_id);
      g = result.snapshot;
    }
    expect([...seen].sort()).toEqual(["s1", "s2"]);
  });

  it("routes a pinned tenant to its member, with route 'pinned'", () => {
    expect(pickFor(canaryGroup(0), "pinned")).toMatchObject({ member_id: "s2", route: "pinned" });
    expect(pickFor(canaryGroup(0), "early")).toMatchObject({ member_id: "c", route: "pinned" });
  });

  it("routes canary tenants to the canary member, with route 'canary'", () => {
    expect(pickFor(canaryGroup(100), "anyone")).toMatchObject({ member_id: "c", route: "canary" });
  });

  it("falls through to stable members when the canary member cannot serve", () => {
    const g = canaryGroup(100);
    const result = pickFor(g, "anyone", states({ s1: "ready", s2: "ready", c: "dead" }));
    expect(result).toMatchObject({ member_id: "s1", route: "strategy" });
  });

  it("falls through when a pinned member cannot serve", () => {
    const g = canaryGroup(0);
    const result = pickFor(g, "pinned", states({ s1: "ready", s2: "dead", c: "ready" }));
    expect(result).toMatchObject({ member_id: "s1", route: "strategy" });
  });

  it("sends stable traffic to the canary when it is the only member left", () => {
    const g = canaryGroup(0);
    const result = pickFor(g, "tenant-1", states({ s1: "dead", s2: "dead", c: "ready" }));
    expect(result).toMatchObject({ member_id: "c", route: "strategy" });
  });

  it("does not route canary tenants while the circuit is open", () => {
    const g = { ...canaryGroup(100), circuit: { open: true, failure_run: 10 } };
    expect(pickFor(g, "early")).toMatchObject({ refused: "circuit_open" });
  });
});
