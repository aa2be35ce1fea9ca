import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  pick,
  rebalance,
  recordHealth,
  recordOutcome,
  recordStart,
  sync,
  type Transition,
  view,
} from "../../../../src/domain/group/group-model.js";
import type { GroupSnapshot } from "../../../../src/domain/group/group-snapshot.js";
import { isServiceable, type MemberStatus } from "../../../../src/domain/group/member-status.js";
import { addMember, createGroup, removeMember } from "../../../../src/domain/group/membership.js";
import { STRATEGY_NAMES } from "../../../../src/domain/group/strategies.js";
import { SERVER_STATES } from "../../../../src/domain/server/lifecycle.js";

const IDS = ["m0", "m1", "m2", "m3"] as const;
const memberId = fc.constantFrom(...IDS);
const status: fc.Arbitrary<MemberStatus> = fc.record({
  state: fc.constantFrom(...SERVER_STATES),
  blocked: fc.boolean(),
});

type Step =
  | { kind: "outcome"; id: string; ok: boolean }
  | { kind: "health"; id: string; ok: boolean }
  | { kind: "start"; id: string; ok: boolean }
  | { kind: "status"; id: string; status: MemberStatus }
  | { kind: "rebalance" }
  | { kind: "pick"; tenant: string | null; draw: number }
  | { kind: "add"; id: string; weight: number }
  | { kind: "remove"; id: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("outcome" as const), id: memberId, ok: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("health" as const), id: memberId, ok: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("start" as const), id: memberId, ok: fc.boolean() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("status" as const), id: memberId, status }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rebalance" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("pick" as const),
      tenant: fc.option(fc.string({ maxLength: 6 })),
      draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      id: memberId,
      weight: fc.integer({ min: 1, max: 100 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), id: memberId }) },
);

const setup = fc.record({
  strategy: fc.constantFrom(...STRATEGY_NAMES),
  members: fc.uniqueArray(memberId, { maxLength: 4 }),
  min_healthy: fc.integer({ min: 1, max: 4 }),
  unhealthy_threshold: fc.integer({ min: 1, max: 4 }),
  healthy_threshold: fc.integer({ min: 1, max: 3 }),
  failure_threshold: fc.integer({ min: 1, max: 6 }),
  split_pct: fc.integer({ min: 0, max: 100 }),
  initial: fc.dictionary(memberId, status),
});

describe("group invariants under random sequences", () => {
  it("keeps the counts ordered, never picks while open, and picks only pickable members", () => {
    fc.assert(
      fc.property(setup, fc.array(step, { maxLength: 60 }), (cfg, steps) => {
        const statuses = new Map<string, MemberStatus>(Object.entries(cfg.initial));
        let g: GroupSnapshot = createGroup(
          {
            group_id: "g",
            strategy: cfg.strategy,
            min_healthy: cfg.min_healthy,
            health: {
              unhealthy_threshold: cfg.unhealthy_threshold,
              healthy_threshold: cfg.healthy_threshold,
            },
            circuit_breaker: { failure_threshold: cfg.failure_threshold },
            canary: { member: cfg.members[0] ?? null, split_pct: cfg.split_pct, pinned_tenants: { t: "m1" } },
            members: cfg.members.map((id) => ({ id })),
          },
          statuses,
        ).snapshot;

        for (const s of steps) {
          const before = g;
          const t = apply(g, s, statuses);
          g = t.snapshot;
          checkInvariants(before, t, statuses, s);
        }
      }),
      { numRuns: 300 },
    );
  });
});

function apply(g: GroupSnapshot, s: Step, statuses: Map<string, MemberStatus>): Transition {
  switch (s.kind) {
    case "outcome":
      return recordOutcome(g, s.id, s.ok, statuses);
    case "health":
      return recordHealth(g, s.id, s.ok, statuses);
    case "start":
      return recordStart(g, s.id, s.ok, statuses);
    case "status":
      statuses.set(s.id, s.status);
      return sync(g, statuses);
    case "rebalance":
      return rebalance(g, statuses);
    case "add":
      return addMember(g, { id: s.id, weight: s.weight }, statuses);
    case "remove":
      return removeMember(g, s.id, statuses);
    case "pick": {
      const result = pick(g, { tenant: s.tenant, random: () => s.draw, memberStates: statuses });
      const v = view(g, statuses);
      if (g.circuit.open) expect(result).toEqual({ refused: "circuit_open", snapshot: g });
      else expect("member_id" in result).toBe(v.is_available);
      if ("member_id" in result) {
        const member = g.members.find((m) => m.id === result.member_id);
        expect(member).toBeDefined();
        const st = statuses.get(result.member_id) ?? { state: "dead" };
        const allColdFallback = v.members.every((m) => m.state === "cold");
        expect((member?.in_rotation === true && isServiceable(st)) || allColdFallback).toBe(true);
      }
      return { snapshot: result.snapshot, events: [] };
    }
  }
}

function checkInvariants(
  before: GroupSnapshot,
  t: Transition,
  statuses: Map<string, MemberStatus>,
  s: Step,
): void {
  const v = view(t.snapshot, statuses);
  expect(v.healthy_count).toBeLessThanOrEqual(v.members_in_rotation_count);
  expect(v.members_in_rotation_count).toBeLessThanOrEqual(v.total_members);
  // The counts agree with a recount from first principles.
  const inRotation = t.snapshot.members.filter((m) => m.in_rotation);
  expect(v.members_in_rotation_count).toBe(inRotation.length);
  expect(v.healthy_count).toBe(inRotation.filter((m) => statuses.get(m.id)?.state === "ready").length);
  expect(v.circuit_open).toBe(v.state === "degraded");
  // A closed circuit never carries a full run of failures.
  if (!t.snapshot.circuit.open)
    expect(t.snapshot.circuit.failure_run).toBeLessThan(t.snapshot.settings.failure_threshold);
  // Only a closing trigger closes the circuit.
  if (before.circuit.open && !t.snapshot.circuit.open) {
    expect(["health", "start", "rebalance"]).toContain(s.kind);
  }
  // The recorded state is current after every operation (a pick changes no state).
  if (s.kind !== "pick") expect(t.snapshot.last_state).toBe(v.state);
  const changes = t.events.filter((e) => e.type === "GroupStateChanged");
  expect(changes.length).toBeLessThanOrEqual(1);
  for (const e of changes) {
    expect(e).toMatchObject({ old_state: before.last_state, new_state: v.state });
  }
}
