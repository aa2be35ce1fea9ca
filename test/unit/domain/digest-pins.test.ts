import { describe, expect, it } from "vitest";
import {
  DriftLedger,
  type PinBlock,
  type PinSource,
  pinChecks,
  pinVerdict,
  resolvePin,
  unknownToolPolicy,
} from "../../../src/domain/policy/digest-pins.js";

const D = (c: string) => c.repeat(64);

function block(partial: Partial<PinBlock> = {}): PinBlock {
  return {
    digest_enforcement: "block",
    unknown_tool_policy: "warn",
    pins: {},
    tenant_overrides: {},
    ...partial,
  };
}

const server: PinSource = {
  declared_on: "srv",
  block: block({
    pins: { search: D("a"), fetch: D("b") },
    tenant_overrides: { acme: { pins: { search: D("c") } } },
  }),
};
const group: PinSource = {
  declared_on: "pool",
  block: block({
    digest_enforcement: "warn",
    unknown_tool_policy: "block",
    pins: { search: D("d"), list: D("e") },
    tenant_overrides: { globex: { pins: { fetch: D("f") } } },
  }),
};

describe("digest pins: which pin governs a call", () => {
  it.each([
    ["a caller without a tenant gets the pin for every caller", null, "search", D("a"), null, "srv"],
    ["a tenant's own pin wins over the pin for every caller", "acme", "search", D("c"), "acme", "srv"],
    ["a tenant without an override gets the pin for every caller", "initech", "search", D("a"), null, "srv"],
    ["the server's own block wins over its group's", null, "search", D("a"), null, "srv"],
    ["a group's pin applies when the server has none for the tool", null, "list", D("e"), null, "pool"],
    [
      "a group's per-tenant pin wins over the server's pin for every caller",
      "globex",
      "fetch",
      D("f"),
      "globex",
      "pool",
    ],
  ] as const)("%s", (_name, tenant, tool, digest, pinTenant, declaredOn) => {
    expect(resolvePin([server, group], tool, tenant)).toEqual({
      digest,
      tenant_id: pinTenant,
      enforcement: declaredOn === "srv" ? "block" : "warn",
      declared_on: declaredOn,
    });
  });

  it("finds no pin for a tool nobody pinned, nor through inherited object keys", () => {
    expect(resolvePin([server, group], "other", "acme")).toBeNull();
    expect(resolvePin([server], "toString", null)).toBeNull();
    expect(resolvePin([server], "search", "constructor")?.tenant_id).toBeNull();
  });

  it("takes the unknown-tool policy of the most specific block that declares pins", () => {
    expect(unknownToolPolicy([server, group])).toBe("warn");
    expect(unknownToolPolicy([{ declared_on: "x", block: block() }, group])).toBe("block");
    expect(unknownToolPolicy([{ declared_on: "x", block: block() }])).toBeNull();
    const tenantOnly = block({
      unknown_tool_policy: "allow_unverified",
      tenant_overrides: { a: { pins: { t: D("1") } } },
    });
    expect(unknownToolPolicy([{ declared_on: "x", block: tenantOnly }])).toBe("allow_unverified");
  });

  it("judges a call: match, mismatch, unknown tool of a pinned server, unpinned server", () => {
    expect(pinVerdict([server], "search", null, D("a")).kind).toBe("match");
    expect(pinVerdict([server], "search", null, D("9"))).toMatchObject({
      kind: "mismatch",
      observed: D("9"),
      pin: { digest: D("a") },
    });
    // The tenant's pin decides for the tenant, even when the digest matches everyone else's pin.
    expect(pinVerdict([server], "search", "acme", D("a")).kind).toBe("mismatch");
    expect(pinVerdict([server], "search", "acme", D("c")).kind).toBe("match");
    expect(pinVerdict([server], "other", null, D("1"))).toEqual({ kind: "unknown", policy: "warn" });
    expect(pinVerdict([{ declared_on: "x", block: block() }], "search", null, D("1"))).toEqual({
      kind: "unpinned",
    });
  });
});

describe("digest pins: comparing a listing", () => {
  it("checks every caller's pin and each tenant override that differs from it, listed tools only", () => {
    const checks = pinChecks(
      [server, group],
      [
        { name: "search", digest: D("a") },
        { name: "fetch", digest: D("0") },
        { name: "unpinned", digest: D("0") },
      ],
    );
    expect(checks.map((c) => [c.tool, c.pin.tenant_id, c.pin.digest])).toEqual([
      ["search", null, D("a")],
      ["search", "acme", D("c")],
      ["fetch", null, D("b")],
      ["fetch", "globex", D("f")],
    ]);
  });

  it("reports a drift once, a different wrong digest again, and again after the pin healed", () => {
    const ledger = new DriftLedger();
    const pin = { digest: D("a"), tenant_id: null, enforcement: "block" as const, declared_on: "srv" };
    const check = (observed: string) => ({ tool: "search", pin, observed });
    expect(ledger.note("srv", check(D("a")))).toBe(false);
    expect(ledger.note("srv", check(D("b")))).toBe(true);
    expect(ledger.note("srv", check(D("b")))).toBe(false);
    expect(ledger.note("srv", check(D("c")))).toBe(true);
    expect(ledger.note("srv", check(D("a")))).toBe(false);
    expect(ledger.note("srv", check(D("c")))).toBe(true);
    // Another server, or another scope of the same tool, is another drift.
    expect(ledger.note("other", check(D("c")))).toBe(true);
    expect(ledger.note("srv", { ...check(D("c")), pin: { ...pin, tenant_id: "acme" } })).toBe(true);
    ledger.forget("srv");
    expect(ledger.note("srv", check(D("c")))).toBe(true);
  });
});
