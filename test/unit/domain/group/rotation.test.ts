import { describe, expect, it } from "vitest";
import {
  recordHealth,
  recordOutcome,
  recordStart,
  type Transition,
} from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot } from "../../../../src/domain/group/group-snapshot.js";
import { allIn, group } from "./fixtures.js";

type Step = "ok" | "fail" | "health_ok" | "health_fail" | "started";

function run(start: GroupSnapshot, steps: Step[], member = "a"): Transition {
  const statuses = allIn(start, "ready");
  let current: Transition = { snapshot: start, events: [] };
  for (const step of steps) {
    const s = current.snapshot;
    const next =
      step === "ok" || step === "fail"
        ? recordOutcome(s, member, step === "ok", statuses)
        : step === "started"
          ? recordStart(s, member, true, statuses)
          : recordHealth(s, member, step === "health_ok", statuses);
    current = { snapshot: next.snapshot, events: [...current.events, ...next.events] };
  }
  return current;
}

const inRotation = (t: Transition, id = "a") => t.snapshot.members.find((m) => m.id === id)?.in_rotation;

describe("member rotation thresholds", () => {
  const defaults = group(["a", "b"]);
  const strict = group(["a", "b"], { health: { unhealthy_threshold: 3, healthy_threshold: 2 } });
  const cases: [string, GroupSnapshot, Step[], boolean][] = [
    ["one failure keeps a member in rotation (default threshold 2)", defaults, ["fail"], true],
    ["two failures in a row take it out (default)", defaults, ["fail", "fail"], false],
    ["a success between failures ends the run", defaults, ["fail", "ok", "fail"], true],
    ["health check failures count like call failures", defaults, ["health_fail", "fail"], false],
    ["one success brings it back (default healthy_threshold 1)", defaults, ["fail", "fail", "ok"], true],
    ["a passing health check brings it back", defaults, ["fail", "fail", "health_ok"], true],
    ["a completed start brings it back", defaults, ["fail", "fail", "started"], true],
    ["a configured unhealthy_threshold of 3 keeps it in after two", strict, ["fail", "fail"], true],
    ["three failures take it out under threshold 3", strict, ["fail", "fail", "fail"], false],
    ["one success is not enough under healthy_threshold 2", strict, ["fail", "fail", "fail", "ok"], false],
    [
      "two successes in a row bring it back under threshold 2",
      strict,
      ["fail", "fail", "fail", "ok", "ok"],
      true,
    ],
    ["a failure resets the success run", strict, ["fail", "fail", "fail", "ok", "fail", "ok"], false],
  ];
  it.each(cases)("%s", (_name, start, steps, expected) => {
    expect(inRotation(run(start, steps))).toBe(expected);
  });

  it("counts consecutive failures and successes on the member", () => {
    const member = run(defaults, ["ok", "fail", "fail", "fail"]).snapshot.members[0];
    expect(member).toMatchObject({ consecutive_failures: 3, consecutive_successes: 0 });
  });

  it("leaves other members untouched", () => {
    expect(inRotation(run(defaults, ["fail", "fail"]), "b")).toBe(true);
  });

  it("emits one rotation event when a member leaves and one when it returns", () => {
    const { events } = run(defaults, ["fail", "fail", "fail", "ok", "ok"]);
    const rotation = events.filter((e) => e.type === "GroupMemberRotationChanged");
    expect(rotation).toEqual([
      {
        type: "GroupMemberRotationChanged",
        group_id: "g",
        member_id: "a",
        in_rotation: false,
        consecutive_failures: 2,
        consecutive_successes: 0,
      },
      {
        type: "GroupMemberRotationChanged",
        group_id: "g",
        member_id: "a",
        in_rotation: true,
        consecutive_failures: 0,
        consecutive_successes: 1,
      },
    ]);
  });

  it("ignores a result for a member that is no longer in the group", () => {
    const { snapshot, events } = recordOutcome(defaults, "gone", true, allIn(defaults, "ready"));
    expect(snapshot.members).toEqual(defaults.members);
    expect(events).toEqual([]);
  });
});
