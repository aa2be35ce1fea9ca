import { describe, expect, it } from "vitest";
import {
  pick,
  rebalance,
  recordHealth,
  recordOutcome,
  recordStart,
  sync,
} from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot } from "../../../../src/domain/group/group-snapshot.js";
import type { MemberStatuses } from "../../../../src/domain/group/member-status.js";
import { allIn, group, noRandom, states } from "./fixtures.js";

const ready = (g: GroupSnapshot) => allIn(g, "ready");

/** Fails `n` calls, spread over the members in turn. */
function failCalls(start: GroupSnapshot, n: number, statuses: MemberStatuses = ready(start)): GroupSnapshot {
  let snapshot = start;
  for (let i = 0; i < n; i++) {
    const member = snapshot.members[i % snapshot.members.length]?.id ?? "";
    snapshot = recordOutcome(snapshot, member, false, statuses).snapshot;
  }
  return snapshot;
}

/** A group whose circuit has just opened, with members kept in rotation (high unhealthy threshold). */
function opened(threshold = 3, extra: { min_healthy?: number } = {}): GroupSnapshot {
  const g = group(["a", "b", "c"], {
    circuit_breaker: { failure_threshold: threshold },
    health: { unhealthy_threshold: 100 },
    ...extra,
  });
  const snapshot = failCalls(g, threshold);
  expect(snapshot.circuit.open).toBe(true);
  return snapshot;
}

describe("circuit breaker opening", () => {
  it("opens after failure_threshold call failures in a row across members", () => {
    const g = group(["a", "b", "c"], { circuit_breaker: { failure_threshold: 4 } });
    expect(failCalls(g, 3).circuit.open).toBe(false);
    expect(failCalls(g, 4).circuit.open).toBe(true);
  });

  it("defaults failure_threshold to 10", () => {
    const g = group(["a", "b", "c", "d", "e"], { health: { unhealthy_threshold: 100 } });
    expect(failCalls(g, 9).circuit.open).toBe(false);
    expect(failCalls(g, 10).circuit.open).toBe(true);
  });

  it("a successful call ends the run", () => {
    const g = group(["a", "b"], { circuit_breaker: { failure_threshold: 3 } });
    const afterSuccess = recordOutcome(failCalls(g, 2), "a", true, ready(g)).snapshot;
    expect(afterSuccess.circuit.failure_run).toBe(0);
    expect(failCalls(afterSuccess, 2).circuit.open).toBe(false);
  });

  it("health check failures do not count towards the run", () => {
    let g = group(["a", "b"], { circuit_breaker: { failure_threshold: 2 } });
    for (let i = 0; i < 5; i++) g = recordHealth(g, "a", false, ready(g)).snapshot;
    expect(g.circuit).toEqual({ open: false, failure_run: 0 });
  });

  it("emits CircuitBreakerOpened then GroupStateChanged to degraded", () => {
    const g = group(["a"], { circuit_breaker: { failure_threshold: 1 } });
    expect(recordOutcome(g, "a", false, ready(g)).events).toEqual([
      { type: "CircuitBreakerOpened", group_id: "g", consecutive_failures: 1 },
      { type: "GroupStateChanged", group_id: "g", old_state: "healthy", new_state: "degraded" },
    ]);
  });

  it("refuses every pick while open", () => {
    const g = opened();
    expect(pick(g, { random: noRandom, memberStates: ready(g) })).toEqual({
      refused: "circuit_open",
      snapshot: g,
    });
  });
});

describe("circuit breaker closing", () => {
  it("stays open on successful calls (they end the run but do not close it)", () => {
    const g = recordOutcome(opened(), "a", true, ready(opened())).snapshot;
    expect(g.circuit).toEqual({ open: true, failure_run: 0 });
  });

  it("has no reset timer: nothing but a closing trigger closes it", () => {
    const g = opened();
    // Any amount of time passing is invisible to the model; a sync (member state change) keeps it open.
    expect(sync(g, ready(g)).snapshot.circuit.open).toBe(true);
    expect(recordHealth(g, "a", false, ready(g)).snapshot.circuit.open).toBe(true);
  });

  const closers: [string, (g: GroupSnapshot, s: MemberStatuses) => GroupSnapshot, string][] = [
    ["a passing health check", (g, s) => recordHealth(g, "a", true, s).snapshot, "health_passed"],
    ["a completed start", (g, s) => recordStart(g, "a", true, s).snapshot, "start_completed"],
    ["a rebalance", (g, s) => rebalance(g, s).snapshot, "rebalance"],
  ];

  it.each(closers)("closes on %s when min_healthy members are in rotation and not dead", (_name, close) => {
    const g = opened();
    const closed = close(g, ready(g));
    expect(closed.circuit).toEqual({ open: false, failure_run: 0 });
    expect(pick(closed, { random: noRandom, memberStates: ready(g) })).toHaveProperty("member_id");
  });

  it.each(closers)(
    "stays open on %s while fewer than min_healthy members are serviceable",
    (_name, close) => {
      const g = opened(3, { min_healthy: 2 });
      const mostlyDead = states({ a: "ready", b: "dead", c: "dead" });
      expect(close(g, mostlyDead).circuit.open).toBe(true);
    },
  );

  it("counts cold and degraded members in rotation as serviceable for closing", () => {
    const g = opened(3, { min_healthy: 3 });
    const closed = rebalance(g, states({ a: "cold", b: "degraded", c: "ready" }));
    expect(closed.snapshot.circuit.open).toBe(false);
  });

  it("does not count members out of rotation", () => {
    let g = group(["a", "b"], { circuit_breaker: { failure_threshold: 4 }, min_healthy: 2 });
    g = failCalls(g, 4); // two failures each: both leave rotation, and the circuit opens
    expect(g.circuit.open).toBe(true);
    expect(rebalance(g, ready(g)).snapshot.circuit.open).toBe(true);
    // A passing health check brings "a" back, but min_healthy 2 needs "b" too.
    g = recordHealth(g, "a", true, ready(g)).snapshot;
    expect(g.circuit.open).toBe(true);
    const last = recordHealth(g, "b", true, ready(g));
    expect(last.snapshot.circuit.open).toBe(false);
    expect(last.events.map((e) => e.type)).toEqual([
      "GroupMemberRotationChanged",
      "CircuitBreakerClosed",
      "GroupStateChanged",
    ]);
    expect(last.events[1]).toEqual({
      type: "CircuitBreakerClosed",
      group_id: "g",
      trigger: "health_passed",
      serviceable_in_rotation: 2,
    });
  });
});
