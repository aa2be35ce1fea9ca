import { describe, expect, it } from "vitest";
import { pick, recordOutcome } from "../../../../src/domain/group/group-model.js";
import {
  addMember,
  createGroup,
  reconfigure,
  removeMember,
  updateSettings,
} from "../../../../src/domain/group/membership.js";
import { allIn, group, noRandom } from "./fixtures.js";

describe("creating a group", () => {
  it("takes the spec's defaults", () => {
    const { snapshot, warnings } = createGroup(
      { group_id: "g", members: [{ id: "a" }] },
      new Map([["a", "cold"]]),
    );
    expect(warnings).toEqual([]);
    expect(snapshot.settings).toEqual({
      description: null,
      strategy: "round_robin",
      min_healthy: 1,
      unhealthy_threshold: 2,
      healthy_threshold: 1,
      failure_threshold: 10,
      canary: null,
    });
    expect(snapshot.members).toEqual([
      {
        id: "a",
        weight: 1,
        priority: 1,
        in_rotation: true,
        consecutive_failures: 0,
        consecutive_successes: 0,
      },
    ]);
    expect(snapshot.last_state).toBe("inactive");
  });

  it("falls back to round_robin with a warning for an unknown strategy", () => {
    const { snapshot, warnings } = createGroup({ group_id: "g", strategy: "sticky" }, new Map());
    expect(snapshot.settings.strategy).toBe("round_robin");
    expect(warnings).toHaveLength(1);
  });

  const invalid: [string, Parameters<typeof createGroup>[0]][] = [
    ["a weight above 100", { group_id: "g", members: [{ id: "a", weight: 101 }] }],
    ["a priority of 0", { group_id: "g", members: [{ id: "a", priority: 0 }] }],
    ["a fractional weight", { group_id: "g", members: [{ id: "a", weight: 1.5 }] }],
    ["min_healthy 0", { group_id: "g", min_healthy: 0 }],
    ["a duplicated member", { group_id: "g", members: [{ id: "a" }, { id: "a" }] }],
    ["a split above 100", { group_id: "g", canary: { member: "a", split_pct: 101 } }],
  ];
  it.each(invalid)("refuses %s", (_name, input) => {
    expect(() => createGroup(input, new Map())).toThrow(RangeError);
  });
});

describe("changing a group", () => {
  it("keeps a member's rotation and counters when its weight changes", () => {
    let g = group(["a", "b"]);
    for (let i = 0; i < 2; i++) g = recordOutcome(g, "a", false, allIn(g, "ready")).snapshot;
    const changed = addMember(g, { id: "a", weight: 7 }, allIn(g, "ready")).snapshot;
    expect(changed.members[0]).toMatchObject({
      id: "a",
      weight: 7,
      in_rotation: false,
      consecutive_failures: 2,
    });
  });

  it("adds a new member in rotation and removes one", () => {
    const g = group(["a"]);
    const added = addMember(g, { id: "b", priority: 3 }, allIn(g, "ready")).snapshot;
    expect(added.members.map((m) => [m.id, m.in_rotation, m.priority])).toEqual([
      ["a", true, 1],
      ["b", true, 3],
    ]);
    expect(removeMember(added, "a", allIn(added, "ready")).snapshot.members.map((m) => m.id)).toEqual(["b"]);
  });

  it("reports the state change a membership change causes", () => {
    const g = group(["a"]);
    const { events } = removeMember(g, "a", new Map());
    expect(events).toEqual([
      { type: "GroupStateChanged", group_id: "g", old_state: "healthy", new_state: "inactive" },
    ]);
  });

  it("keeps the round-robin turn across a membership change", () => {
    const g = group(["a", "b", "c"]);
    const ready = allIn(g, "ready");
    const afterB = pick(pick(g, { random: noRandom, memberStates: ready }).snapshot, {
      random: noRandom,
      memberStates: ready,
    }).snapshot;
    const withoutA = removeMember(afterB, "a", ready).snapshot;
    expect(pick(withoutA, { random: noRandom, memberStates: ready })).toMatchObject({ member_id: "c" });
  });

  it("updates only the settings given, warning on an unknown strategy", () => {
    const g = group(["a"], { description: "x", min_healthy: 1 });
    const updated = updateSettings(g, { min_healthy: 2, strategy: "nope" }, allIn(g, "ready"));
    expect(updated.snapshot.settings).toMatchObject({
      description: "x",
      min_healthy: 2,
      strategy: "round_robin",
    });
    expect(updated.warnings).toHaveLength(1);
    expect(updated.events).toEqual([
      { type: "GroupStateChanged", group_id: "g", old_state: "healthy", new_state: "partial" },
    ]);
  });

  it("keeps the open circuit across a reload", () => {
    const g = group(["a"], { circuit_breaker: { failure_threshold: 1 } });
    const open = recordOutcome(g, "a", false, allIn(g, "ready")).snapshot;
    const reloaded = reconfigure(
      open,
      { group_id: "g", members: [{ id: "a" }, { id: "b" }] },
      allIn(g, "ready"),
    );
    expect(reloaded.snapshot.circuit.open).toBe(true);
    expect(reloaded.snapshot.settings.failure_threshold).toBe(10);
  });
});
