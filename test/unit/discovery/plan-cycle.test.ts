import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CycleDecision,
  planCycle,
  type SourceHoldings,
} from "../../../src/domain/discovery/plan-cycle.js";

const holdings = (
  registered: Record<string, string> = {},
  pending: Record<string, string> = {},
  quarantined: Record<string, string> = {},
): SourceHoldings => ({
  registered: new Map(Object.entries(registered)),
  pending: new Map(Object.entries(pending)),
  quarantined: new Map(Object.entries(quarantined)),
});

const additive = { mode: "additive", autoRegister: true } as const;
const authoritative = { mode: "authoritative", autoRegister: true } as const;
const manual = { mode: "additive", autoRegister: false } as const;

describe("planning a discovery cycle", () => {
  it.each<[string, SourceHoldings, [string, string][], Parameters<typeof planCycle>[2], CycleDecision[]]>([
    ["a new server is registered", holdings(), [["a", "f1"]], additive, [{ action: "register", name: "a" }]],
    ["an unchanged registered server is left alone", holdings({ a: "f1" }), [["a", "f1"]], additive, []],
    [
      "a changed registered server is updated",
      holdings({ a: "f1" }),
      [["a", "f2"]],
      additive,
      [{ action: "update", name: "a" }],
    ],
    ["additive keeps a server the source stopped reporting", holdings({ a: "f1" }), [], additive, []],
    [
      "authoritative deregisters a server the source stopped reporting",
      holdings({ a: "f1" }),
      [],
      authoritative,
      [{ action: "deregister", name: "a" }],
    ],
    [
      "with auto-registration off a new server is held",
      holdings(),
      [["a", "f1"]],
      manual,
      [{ action: "hold", name: "a" }],
    ],
    [
      "with auto-registration off a changed registered server is held, not updated",
      holdings({ a: "f1" }),
      [["a", "f2"]],
      manual,
      [{ action: "hold", name: "a" }],
    ],
    [
      "a pending server seen again unchanged goes to review",
      holdings({}, { a: "f1" }),
      [["a", "f1"]],
      manual,
      [{ action: "review", name: "a" }],
    ],
    [
      "a pending server that changed is held again",
      holdings({}, { a: "f1" }),
      [["a", "f2"]],
      manual,
      [{ action: "hold", name: "a" }],
    ],
    [
      "a pending server no longer reported is released",
      holdings({}, { a: "f1" }),
      [],
      manual,
      [{ action: "release", name: "a", from: "pending" }],
    ],
    [
      "a quarantined server seen unchanged waits for the operator",
      holdings({}, {}, { a: "f1" }),
      [["a", "f1"]],
      additive,
      [],
    ],
    [
      "a quarantined server that changed is judged again",
      holdings({}, {}, { a: "f1" }),
      [["a", "f2"]],
      additive,
      [{ action: "register", name: "a" }],
    ],
    [
      "a quarantined server no longer reported is released",
      holdings({}, {}, { a: "f1" }),
      [],
      authoritative,
      [{ action: "release", name: "a", from: "quarantine" }],
    ],
    [
      "a quarantined update reverted to the registered definition is released",
      holdings({ a: "f1" }, {}, { a: "f2" }),
      [["a", "f1"]],
      additive,
      [{ action: "release", name: "a", from: "quarantine" }],
    ],
  ])("%s", (_title, held, seen, settings, expected) => {
    const sightings = seen.map(([name, fingerprint]) => ({ name, fingerprint }));
    expect(planCycle(held, sightings, settings)).toEqual(expected);
  });
});

describe("planning invariants", () => {
  const name = fc.constantFrom("a", "b", "c", "d", "e");
  const fp = fc.constantFrom("f1", "f2", "f3");
  const map = fc.dictionary(name, fp);
  const arbitrary = fc.record({
    registered: map,
    pending: map,
    quarantined: map,
    seen: fc.uniqueArray(fc.record({ name, fingerprint: fp }), { selector: (s) => s.name }),
    mode: fc.constantFrom("additive", "authoritative") as fc.Arbitrary<"additive" | "authoritative">,
    autoRegister: fc.boolean(),
  });

  it("names each name at most once outside releases, and only names seen or held", () => {
    fc.assert(
      fc.property(arbitrary, (input) => {
        const held = holdings(input.registered, input.pending, input.quarantined);
        const decisions = planCycle(held, input.seen, input);
        const main = decisions.filter((d) => d.action !== "release").map((d) => d.name);
        expect(new Set(main).size).toBe(main.length);
        const known = new Set([
          ...input.seen.map((s) => s.name),
          ...Object.keys(input.registered),
          ...Object.keys(input.pending),
          ...Object.keys(input.quarantined),
        ]);
        for (const decision of decisions) expect(known.has(decision.name)).toBe(true);
      }),
    );
  });

  it("never deregisters in additive mode, and deregisters exactly the unseen registered servers in authoritative mode", () => {
    fc.assert(
      fc.property(arbitrary, (input) => {
        const held = holdings(input.registered, input.pending, input.quarantined);
        const gone = planCycle(held, input.seen, input)
          .filter((d) => d.action === "deregister")
          .map((d) => d.name)
          .sort();
        const seen = new Set(input.seen.map((s) => s.name));
        const expected =
          input.mode === "additive"
            ? []
            : Object.keys(input.registered)
                .filter((n) => !seen.has(n as never))
                .sort();
        expect(gone).toEqual(expected);
      }),
    );
  });

  it("never registers or updates with auto-registration off", () => {
    fc.assert(
      fc.property(arbitrary, (input) => {
        const held = holdings(input.registered, input.pending, input.quarantined);
        const decisions = planCycle(held, input.seen, { mode: input.mode, autoRegister: false });
        expect(decisions.some((d) => d.action === "register" || d.action === "update")).toBe(false);
      }),
    );
  });
});
