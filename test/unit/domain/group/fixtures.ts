import type { GroupInput, GroupSnapshot, MemberInput } from "../../../../src/domain/group/group-snapshot.js";
import type { MemberStatuses } from "../../../../src/domain/group/member-status.js";
import { createGroup } from "../../../../src/domain/group/membership.js";
import type { ServerState } from "../../../../src/domain/server/lifecycle.js";

/** Builds a group; members are all `ready` unless statuses say otherwise. */
export function group(
  members: readonly (string | MemberInput)[],
  extra: Omit<GroupInput, "group_id" | "members"> = {},
): GroupSnapshot {
  const inputs = members.map((m) => (typeof m === "string" ? { id: m } : m));
  return createGroup({ group_id: "g", ...extra, members: inputs }, allIn(inputs, "ready")).snapshot;
}

export function allIn(
  members: readonly { id: string }[] | GroupSnapshot,
  state: ServerState,
): MemberStatuses {
  const list = "members" in members ? members.members : members;
  return new Map(list.map((m) => [m.id, state]));
}

export function states(entries: Record<string, ServerState>): MemberStatuses {
  return new Map(Object.entries(entries));
}

/** Mulberry32: a small seeded PRNG so "random" tests are repeatable. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const noRandom = (): number => {
  throw new Error("this strategy must not draw randomness");
};
