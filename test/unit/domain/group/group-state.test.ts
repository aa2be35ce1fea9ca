import { describe, expect, it } from "vitest";
import { pick, recordOutcome, sync, view } from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot } from "../../../../src/domain/group/group-snapshot.js";
import type { GroupState } from "../../../../src/domain/group/group-state.js";
import type { MemberStatus, MemberStatuses } from "../../../../src/domain/group/member-status.js";
import type { ServerState } from "../../../../src/domain/server/lifecycle.js";
import { allIn, group, noRandom, states } from "./fixtures.js";

/** A three-member group with min_healthy 2 where "c" has left rotation. */
function withCOut(): GroupSnapshot {
  let g = group(["a", "b", "c"], { min_healthy: 2 });
  for (let i = 0; i < 2; i++) g = recordOutcome(g, "c", false, allIn(g, "ready")).snapshot;
  return g;
}

describe("group state", () => {
  const g = group(["a", "b", "c"], { min_healthy: 2 });
  const cases: [string, GroupSnapshot, MemberStatuses, GroupState][] = [
    ["healthy with min_healthy members ready", g, states({ a: "ready", b: "ready", c: "cold" }), "healthy"],
    ["partial below min_healthy", g, states({ a: "ready", b: "cold", c: "dead" }), "partial"],
    ["inactive with no member ready", g, allIn(g, "cold"), "inactive"],
    [
      "inactive when ready members are out of rotation",
      withCOut(),
      states({ a: "cold", b: "dead", c: "ready" }),
      "inactive",
    ],
    [
      "partial when a ready member left rotation",
      withCOut(),
      states({ a: "ready", b: "cold", c: "ready" }),
      "partial",
    ],
  ];
  it.each(cases)("is %s", (_name, snapshot, statuses, expected) => {
    expect(view(snapshot, statuses).state).toBe(expected);
  });

  it("is degraded while the circuit is open, whatever the members", () => {
    const one = group(["a"], {
      circuit_breaker: { failure_threshold: 1 },
      health: { unhealthy_threshold: 5 },
    });
    const open = recordOutcome(one, "a", false, allIn(one, "ready")).snapshot;
    expect(view(open, allIn(one, "ready")).state).toBe("degraded");
  });

  it("reports a state change once when member states change", () => {
    const start = group(["a", "b"]);
    const cold = sync(start, allIn(start, "cold"));
    expect(cold.events).toEqual([
      { type: "GroupStateChanged", group_id: "g", old_state: "healthy", new_state: "inactive" },
    ]);
    expect(sync(cold.snapshot, allIn(start, "cold")).events).toEqual([]);
  });
});

describe("group view and availability", () => {
  it("has the fields of the spec's group object", () => {
    const g = group(
      [
        { id: "a", weight: 3, priority: 2 },
        { id: "b", weight: 1, priority: 1 },
      ],
      { description: "pair", strategy: "weighted_round_robin" },
    );
    expect(view(g, states({ a: "ready", b: "cold" }))).toEqual({
      group_id: "g",
      description: "pair",
      state: "healthy",
      strategy: "weighted_round_robin",
      min_healthy: 1,
      healthy_count: 1,
      members_in_rotation_count: 2,
      total_members: 2,
      is_available: true,
      circuit_open: false,
      members: [
        { id: "a", state: "ready", in_rotation: true, weight: 3, priority: 2, consecutive_failures: 0 },
        { id: "b", state: "cold", in_rotation: true, weight: 1, priority: 1, consecutive_failures: 0 },
      ],
    });
  });

  it("a group of cold members reads healthy_count 0 and still routes", () => {
    const g = group(["a", "b"]);
    const cold = allIn(g, "cold");
    expect(view(g, cold)).toMatchObject({ healthy_count: 0, state: "inactive", is_available: true });
    expect(pick(g, { random: noRandom, memberStates: cold })).toMatchObject({ member_id: "a" });
  });

  it("all cold and startable routes even with every member out of rotation", () => {
    let g = group(["a"]);
    for (let i = 0; i < 2; i++) g = recordOutcome(g, "a", false, allIn(g, "ready")).snapshot;
    const cold = allIn(g, "cold");
    expect(view(g, cold)).toMatchObject({ members_in_rotation_count: 0, is_available: true });
    expect(pick(g, { random: noRandom, memberStates: cold })).toMatchObject({ member_id: "a" });
  });

  const unavailable: [string, MemberStatuses][] = [
    ["every member is dead", states({ a: "dead", b: "dead" })],
    [
      "the only cold member is blocked",
      new Map<string, MemberStatus | ServerState>([
        ["a", { state: "cold", blocked: true }],
        ["b", "dead"],
      ]),
    ],
    ["the member statuses are unknown", new Map()],
  ];
  it.each(unavailable)("is unavailable and refuses a pick when %s", (_name, statuses) => {
    const g = group(["a", "b"]);
    expect(view(g, statuses).is_available).toBe(false);
    expect(pick(g, { random: noRandom, memberStates: statuses })).toEqual({
      refused: "no_members",
      snapshot: g,
    });
  });

  it("an empty group is inactive and unavailable", () => {
    const g = group([]);
    expect(view(g, new Map())).toMatchObject({ state: "inactive", is_available: false, total_members: 0 });
    expect(pick(g, { random: noRandom, memberStates: new Map() })).toMatchObject({ refused: "no_members" });
  });

  it("never picks a member out of rotation while another is in", () => {
    const g = withCOut();
    const statuses = allIn(g, "ready");
    let snapshot = g;
    for (let i = 0; i < 20; i++) {
      const result = pick(snapshot, { random: noRandom, memberStates: statuses });
      expect(result).not.toMatchObject({ member_id: "c" });
      snapshot = result.snapshot;
    }
  });
});
