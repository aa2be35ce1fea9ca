import { afterEach, describe, expect, it, vi } from "vitest";
import { NodeIdGenerator } from "../../src/adapters/system/node-ids.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The millisecond timestamp of a UUID v7: its first 48 bits. */
function timeOf(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

describe("NodeIdGenerator.timeOrderedUuid", () => {
  afterEach(() => vi.useRealTimers());

  it("is a UUID v7 (RFC 9562 layout: version 7, variant 10) carrying the time of creation", () => {
    const ids = new NodeIdGenerator();
    const before = Date.now();
    const id = ids.timeOrderedUuid();
    const after = Date.now();
    expect(id).toMatch(V7);
    expect(timeOf(id)).toBeGreaterThanOrEqual(before);
    expect(timeOf(id)).toBeLessThanOrEqual(after);
  });

  it("sorts ids of later milliseconds after earlier ones, as text", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const ids = new NodeIdGenerator();
    const made: string[] = [];
    for (const time of [1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_256, 1_800_000_000_000]) {
      vi.setSystemTime(time);
      made.push(ids.timeOrderedUuid());
      expect(timeOf(made.at(-1) as string)).toBe(time);
    }
    expect([...made].sort()).toEqual(made);
  });

  it("keeps 74 random bits: ids of the same millisecond differ", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_700_000_000_000);
    const ids = new NodeIdGenerator();
    const made = new Set(Array.from({ length: 10_000 }, () => ids.timeOrderedUuid()));
    expect(made.size).toBe(10_000);
    for (const id of made) expect(id).toMatch(V7);
  });

  it("leaves uuid() a random v4", () => {
    expect(new NodeIdGenerator().uuid()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
