import { describe, expect, it } from "vitest";
import { type PickContext, pick } from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot, MemberInput } from "../../../../src/domain/group/group-snapshot.js";
import type { MemberStatuses } from "../../../../src/domain/group/member-status.js";
import { resolveStrategy, type StrategyName } from "../../../../src/domain/group/strategies.js";
import { allIn, group, noRandom, seeded, states } from "./fixtures.js";

/** Picks `n` times, carrying the snapshot forward, and returns the chosen ids. */
function picks(start: GroupSnapshot, n: number, ctx: Partial<PickContext> = {}): string[] {
  let snapshot = start;
  const chosen: string[] = [];
  const memberStates = ctx.memberStates ?? allIn(start, "ready");
  for (let i = 0; i < n; i++) {
    const result = pick(snapshot, { random: noRandom, ...ctx, memberStates });
    if (!("member_id" in result)) throw new Error(`refused: ${result.refused}`);
    chosen.push(result.member_id);
    snapshot = result.snapshot;
  }
  return chosen;
}

function shares(ids: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).map(([id, n]) => [id, n / ids.length]));
}

function expectWithinTwoPercentOfWeights(ids: string[], members: MemberInput[]): void {
  const total = members.reduce((sum, m) => sum + (m.weight ?? 1), 0);
  const got = shares(ids);
  for (const m of members)
    expect(Math.abs((got[m.id] ?? 0) - (m.weight ?? 1) / total)).toBeLessThanOrEqual(0.02);
}

const weighted: MemberInput[] = [
  { id: "a", weight: 5 },
  { id: "b", weight: 3 },
  { id: "c", weight: 2 },
];

describe("strategy distribution over 10,000 picks", () => {
  const cases: [StrategyName, MemberInput[], Partial<PickContext>][] = [
    ["round_robin", [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }], {}],
    ["weighted_round_robin", weighted, {}],
    ["random", weighted, { random: seeded(42) }],
    ["random", [{ id: "a" }, { id: "b" }], { random: seeded(7) }],
    [
      "priority",
      [
        { id: "a", priority: 1 },
        { id: "b", priority: 1 },
        { id: "c", priority: 2 },
      ],
      {},
    ],
  ];
  it.each(cases)("%s follows the weights within 2%%", (strategy, members, ctx) => {
    const ids = picks(group(members, { strategy }), 10_000, ctx);
    // Priority serves the top level only, evenly.
    const expected = strategy === "priority" ? members.filter((m) => m.priority === 1) : members;
    expectWithinTwoPercentOfWeights(ids, expected);
  });
});

describe("round robin", () => {
  it("takes members in turn", () => {
    expect(picks(group(["a", "b", "c"]), 7)).toEqual(["a", "b", "c", "a", "b", "c", "a"]);
  });

  it("skips a member out of the pickable set and keeps the turn when it returns", () => {
    const g = group(["a", "b", "c"]);
    const first = picks(g, 1);
    expect(first).toEqual(["a"]);
    const afterA = pick(g, { random: noRandom, memberStates: allIn(g, "ready") }).snapshot;
    const withoutB = states({ a: "ready", b: "dead", c: "ready" });
    expect(picks(afterA, 3, { memberStates: withoutB })).toEqual(["c", "a", "c"]);
  });
});

describe("smooth weighted round robin", () => {
  it("spreads weights 5,1,1 as a a b a c a a, cycle after cycle", () => {
    const g = group(
      [
        { id: "a", weight: 5 },
        { id: "b", weight: 1 },
        { id: "c", weight: 1 },
      ],
      { strategy: "weighted_round_robin" },
    );
    const cycle = ["a", "a", "b", "a", "c", "a", "a"];
    expect(picks(g, 21)).toEqual([...cycle, ...cycle, ...cycle]);
  });

  it("gives each member exactly its weight over one cycle", () => {
    const ids = picks(group(weighted, { strategy: "weighted_round_robin" }), 10);
    expect(shares(ids)).toEqual({ a: 0.5, b: 0.3, c: 0.2 });
  });

  it("never bursts a member beyond its share", () => {
    const ids = picks(
      group(
        [
          { id: "a", weight: 2 },
          { id: "b", weight: 2 },
        ],
        { strategy: "weighted_round_robin" },
      ),
      8,
    );
    expect(ids).toEqual(["a", "b", "a", "b", "a", "b", "a", "b"]);
  });
});

describe("least connections", () => {
  const g = group(["a", "b", "c"], { strategy: "least_connections" });
  const cases: [string, Record<string, number>, string][] = [
    ["the member with fewest calls in flight", { a: 3, b: 1, c: 2 }, "b"],
    ["the first member on a tie", { a: 2, b: 1, c: 1 }, "b"],
    ["the first member when nothing is in flight", {}, "a"],
    ["a member missing from the map as zero in flight", { a: 1, b: 1 }, "c"],
  ];
  it.each(cases)("chooses %s", (_name, inFlight, expected) => {
    const result = pick(g, {
      random: noRandom,
      memberStates: allIn(g, "ready"),
      inFlight: new Map(Object.entries(inFlight)),
    });
    expect(result).toMatchObject({ member_id: expected });
  });
});

describe("random", () => {
  const g = group(weighted, { strategy: "random" });
  const cases: [number, string][] = [
    [0, "a"],
    [0.49, "a"],
    [0.5, "b"],
    [0.79, "b"],
    [0.8, "c"],
    [0.999, "c"],
  ];
  it.each(cases)("maps a draw of %d onto the weights (%s)", (draw, expected) => {
    expect(pick(g, { random: () => draw, memberStates: allIn(g, "ready") })).toMatchObject({
      member_id: expected,
    });
  });
});

describe("priority", () => {
  const g = group(
    [
      { id: "p1a", priority: 1 },
      { id: "p2", priority: 2 },
      { id: "p1b", priority: 1 },
      { id: "p3", priority: 3 },
    ],
    { strategy: "priority" },
  );
  const cases: [string, MemberStatuses, string[]][] = [
    ["prefers the lowest number, in turn", allIn(g, "ready"), ["p1a", "p1b", "p1a"]],
    [
      "falls through to the next level when the first is dead",
      states({ p1a: "dead", p1b: "dead", p2: "ready", p3: "ready" }),
      ["p2", "p2"],
    ],
    ["falls through two levels", states({ p1a: "dead", p1b: "dead", p2: "dead", p3: "cold" }), ["p3"]],
    [
      "keeps the level while one member of it can serve",
      states({ p1a: "dead", p1b: "degraded", p2: "ready", p3: "ready" }),
      ["p1b", "p1b"],
    ],
  ];
  it.each(cases)("%s", (_name, memberStates, expected) => {
    expect(picks(g, expected.length, { memberStates })).toEqual(expected);
  });
});

describe("members the call may reach", () => {
  it("picks only eligible members, in the strategy's order among them", () => {
    const g = group([{ id: "a" }, { id: "b" }, { id: "c" }], { strategy: "round_robin" });
    expect(picks(g, 4, { eligible: (id) => id !== "b" })).toEqual(["a", "c", "a", "c"]);
  });

  it("keeps every pickable member when none is eligible, so the call meets its refusal", () => {
    const g = group([{ id: "a" }, { id: "b" }], { strategy: "round_robin" });
    expect(picks(g, 2, { eligible: () => false })).toEqual(["a", "b"]);
  });

  it("never picks a member out of the pickable set, eligible or not", () => {
    const g = group([{ id: "a" }, { id: "b" }, { id: "c" }], { strategy: "round_robin" });
    const memberStates = states({ a: "ready", b: "dead", c: "ready" });
    expect(picks(g, 3, { memberStates, eligible: (id) => id !== "c" })).toEqual(["a", "a", "a"]);
  });
});

describe("strategy resolution", () => {
  it("falls back to round_robin with a warning for an unknown strategy", () => {
    const resolved = resolveStrategy("fastest");
    expect(resolved.strategy).toBe("round_robin");
    expect(resolved.warning).toContain('"fastest"');
  });

  it("takes a known strategy without a warning, and round_robin when none is given", () => {
    expect(resolveStrategy("priority")).toEqual({ strategy: "priority", warning: null });
    expect(resolveStrategy(undefined)).toEqual({ strategy: "round_robin", warning: null });
  });
});
