import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allocateShares } from "../../../../src/domain/truncation/shares.js";

const budget = { maxBatchBytes: 1_000, minPerResponseBytes: 100 };

describe("allocateShares", () => {
  it("cuts nothing when the results fit the batch budget together", () => {
    const sizes = [300, 200, 500];
    const shares = allocateShares(sizes, budget);
    for (const [i, size] of sizes.entries()) expect(shares[i]).toBeGreaterThanOrEqual(size);
  });

  it("lets small results keep everything and divides the rest equally among the large ones", () => {
    expect(allocateShares([50, 5_000, 3_000], budget)).toEqual([100, 475, 475]);
  });

  it("never gives a result less than min_per_response_bytes, even past the batch budget", () => {
    const shares = allocateShares(
      Array.from({ length: 20 }, () => 10_000),
      budget,
    );
    expect(shares).toEqual(Array.from({ length: 20 }, () => 100));
  });

  it("answers no shares for no results", () => {
    expect(allocateShares([], budget)).toEqual([]);
  });

  const sizes = fc.array(fc.nat({ max: 50_000 }), { maxLength: 40 });
  const budgets = fc
    .record({ maxBatchBytes: fc.integer({ min: 1, max: 200_000 }), min: fc.integer({ min: 1, max: 20_000 }) })
    .filter(({ maxBatchBytes, min }) => min <= maxBatchBytes)
    .map(({ maxBatchBytes, min }) => ({ maxBatchBytes, minPerResponseBytes: min }));

  it("property: every share is at least the minimum", () => {
    fc.assert(
      fc.property(sizes, budgets, (s, b) => {
        expect(allocateShares(s, b).every((share) => share >= b.minPerResponseBytes)).toBe(true);
      }),
    );
  });

  it("property: a batch within its budget is never cut", () => {
    fc.assert(
      fc.property(sizes, budgets, (s, b) => {
        fc.pre(s.reduce((a, x) => a + x, 0) <= b.maxBatchBytes);
        const shares = allocateShares(s, b);
        for (const [i, size] of s.entries()) expect(shares[i]).toBeGreaterThanOrEqual(size);
      }),
    );
  });

  it("property: what is kept fits the batch budget whenever the minimums do", () => {
    fc.assert(
      fc.property(sizes, budgets, (s, b) => {
        fc.pre(s.length * b.minPerResponseBytes <= b.maxBatchBytes);
        const shares = allocateShares(s, b);
        const kept = s.reduce((sum, size, i) => sum + Math.min(size, shares[i]!), 0);
        expect(kept).toBeLessThanOrEqual(b.maxBatchBytes);
      }),
    );
  });

  it("property: a larger result never gets a smaller share than a smaller one", () => {
    fc.assert(
      fc.property(sizes, budgets, (s, b) => {
        const shares = allocateShares(s, b);
        for (let i = 0; i < s.length; i++)
          for (let j = 0; j < s.length; j++)
            if (s[i]! > s[j]!)
              expect(Math.min(s[i]!, shares[i]!)).toBeGreaterThanOrEqual(Math.min(s[j]!, shares[j]!));
      }),
    );
  });
});
