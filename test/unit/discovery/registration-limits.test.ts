import { describe, expect, it } from "vitest";
import { fingerprintInput } from "../../../src/domain/discovery/fingerprint.js";
import {
  entryTtlSeconds,
  isExpired,
  remainingTtlSeconds,
} from "../../../src/domain/discovery/pending-ttl.js";
import { admitRegistration, withinSourceCap } from "../../../src/domain/discovery/registration-limits.js";

describe("the per-source registration rate", () => {
  it.each<[string, number[], number, number, boolean, number[]]>([
    ["admits under the limit and records the time", [1_000], 2_000, 2, true, [1_000, 2_000]],
    ["refuses at the limit without recording", [1_000, 1_500], 2_000, 2, false, [1_000, 1_500]],
    ["forgets registrations a minute old", [1_000, 1_500], 61_000, 2, true, [1_500, 61_000]],
    ["admits the first registration", [], 5, 1, true, [5]],
  ])("%s", (_title, history, now, perMinute, admitted, after) => {
    expect(admitRegistration(history, now, perMinute)).toEqual({ admitted, history: after });
  });
});

describe("the per-source count cap", () => {
  it.each([
    [0, 1, true],
    [1, 1, false],
    [99, 100, true],
    [100, 100, false],
  ])("%i registered under a cap of %i may register one more: %s", (count, cap, allowed) => {
    expect(withinSourceCap(count, cap)).toBe(allowed);
  });
});

describe("the TTL of entries that are not registered", () => {
  it("lasts three refresh intervals", () => {
    expect(entryTtlSeconds(60)).toBe(180);
  });
  it.each([
    [0, 0, 180, 180, false],
    [0, 179_500, 180, 0, false],
    [0, 180_000, 180, 0, true],
    [0, 500_000, 180, 0, true],
  ])("seen at %i, now %i, ttl %i s: %i s left, expired %s", (seen, now, ttl, left, expired) => {
    expect(remainingTtlSeconds(seen, now, ttl)).toBe(left);
    expect(isExpired(seen, now, ttl)).toBe(expired);
  });
});

describe("fingerprint input", () => {
  it("covers name, definition and group but not where the server was found", () => {
    const input = fingerprintInput({
      name: "a",
      definition: { mode: "remote", endpoint: "http://x" },
      group: "g",
    });
    expect(input).toEqual({ name: "a", definition: { mode: "remote", endpoint: "http://x" }, group: "g" });
    expect(fingerprintInput({ name: "a", definition: {} })).toEqual({
      name: "a",
      definition: {},
      group: null,
    });
  });
});
