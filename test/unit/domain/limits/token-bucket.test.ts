import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dropRefilled, TokenBucket } from "../../../../src/domain/limits/token-bucket.js";

describe("a token bucket", () => {
  it("admits a burst of exactly `burst` calls at one instant, then refuses", () => {
    const bucket = new TokenBucket({ rps: 10, burst: 5 }, 0);
    const admitted = Array.from({ length: 15 }, () => bucket.tryTake(0)).filter(Boolean).length;
    expect(admitted).toBe(5);
    expect(bucket.canTake(0)).toBe(false);
  });

  it("refills at rps tokens per second of elapsed time", () => {
    const bucket = new TokenBucket({ rps: 10, burst: 5 }, 1_000);
    for (let i = 0; i < 5; i++) bucket.tryTake(1_000);
    expect(bucket.tryTake(1_050)).toBe(false); // half a token
    expect(bucket.tryTake(1_100)).toBe(true); // one token after 100 ms
    expect(bucket.tryTake(1_100)).toBe(false);
    expect(bucket.available(1_400)).toBeCloseTo(3, 9);
  });

  it("never holds more than burst, however long it idles", () => {
    const bucket = new TokenBucket({ rps: 1000, burst: 3 }, 0);
    expect(bucket.available(10_000_000)).toBe(3);
    expect(bucket.isFull(10_000_000)).toBe(true);
  });

  it("says how long until the next token, and admits a retry at exactly that time", () => {
    const bucket = new TokenBucket({ rps: 3, burst: 1 }, 0);
    expect(bucket.retryAfterSeconds(0)).toBe(0);
    bucket.tryTake(0);
    expect(bucket.retryAfterSeconds(0)).toBeCloseTo(1 / 3, 9);
    expect(bucket.retryAfterSeconds(200)).toBeCloseTo(1 / 3 - 0.2, 9);
    const wait = bucket.retryAfterSeconds(200) * 1000;
    expect(bucket.tryTake(200 + wait)).toBe(true);
  });

  it("mints nothing when the clock goes backwards, and resumes only past the latest instant seen", () => {
    const bucket = new TokenBucket({ rps: 10, burst: 2 }, 5_000);
    bucket.tryTake(5_000);
    bucket.tryTake(5_000);
    expect(bucket.available(1_000)).toBe(0); // jumped back 4 s
    expect(bucket.available(4_900)).toBe(0); // moving forward again, still before 5 000
    expect(bucket.available(5_100)).toBeCloseTo(1, 9); // only the 100 ms after 5 000 count
  });

  it("refuses settings it cannot honour, naming the field and the rule", () => {
    expect(() => new TokenBucket({ rps: 0, burst: 1 }, 0)).toThrow(
      /rps must be a finite number greater than 0/,
    );
    expect(() => new TokenBucket({ rps: Number.NaN, burst: 1 }, 0)).toThrow(/rps/);
    expect(() => new TokenBucket({ rps: 1, burst: 0 }, 0)).toThrow(/burst must be .* at least 1/);
    expect(() => new TokenBucket({ rps: 1, burst: Number.POSITIVE_INFINITY }, 0)).toThrow(/burst/);
  });

  it("drops only the buckets that are full again", () => {
    const used = new TokenBucket({ rps: 1, burst: 2 }, 0);
    const idle = new TokenBucket({ rps: 1, burst: 2 }, 0);
    used.tryTake(0);
    const buckets = new Map([
      ["used", used],
      ["idle", idle],
    ]);
    dropRefilled(buckets, 500);
    expect([...buckets.keys()]).toEqual(["used"]);
    dropRefilled(buckets, 1_000);
    expect(buckets.size).toBe(0);
  });
});

/** A step of a random run: let time pass (possibly backwards), then try to take `attempts` tokens. */
const step = fc.record({
  dt: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
    fc.integer({ min: -5_000, max: 0 }),
  ),
  attempts: fc.integer({ min: 0, max: 30 }),
});
const settings = fc.record({
  rps: fc.double({ min: 0.01, max: 1_000, noNaN: true }),
  burst: fc.integer({ min: 1, max: 50 }),
});

describe("token bucket properties", () => {
  it("admits at most burst + rps * t calls over any run, clock jumps back included", () => {
    fc.assert(
      fc.property(settings, fc.array(step, { maxLength: 60 }), (s, steps) => {
        const start = 10_000;
        const bucket = new TokenBucket(s, start);
        let now = start;
        let latest = start;
        let admitted = 0;
        for (const { dt, attempts } of steps) {
          now += dt;
          latest = Math.max(latest, now);
          for (let i = 0; i < attempts; i++) if (bucket.tryTake(now)) admitted++;
          expect(bucket.available(now)).toBeLessThanOrEqual(s.burst);
          expect(bucket.available(now)).toBeGreaterThanOrEqual(0);
          // Time that went backwards and forwards again over the same stretch counts once.
          expect(admitted).toBeLessThanOrEqual(s.burst + (s.rps * (latest - start)) / 1000 + 1e-6);
        }
      }),
    );
  });

  it("admits floor(burst) at once and then exactly the tokens refilled by the elapsed time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (rps, burst, whole) => {
          const bucket = new TokenBucket({ rps, burst }, 0);
          let first = 0;
          while (bucket.tryTake(0)) first++;
          expect(first).toBe(burst);
          // `whole` tokens' worth of time, capped by the burst.
          const later = (whole * 1000) / rps;
          let refilled = 0;
          while (bucket.tryTake(later)) refilled++;
          expect(refilled).toBe(Math.min(whole, burst));
        },
      ),
    );
  });

  it("a refused take spends nothing, and retryAfterSeconds is when the next take passes", () => {
    fc.assert(
      fc.property(settings, fc.integer({ min: 0, max: 10_000 }), (s, at) => {
        const bucket = new TokenBucket(s, 0);
        while (bucket.tryTake(at)) {}
        const before = bucket.available(at);
        expect(bucket.tryTake(at)).toBe(false);
        expect(bucket.available(at)).toBe(before);
        const wait = bucket.retryAfterSeconds(at);
        expect(wait).toBeGreaterThan(0);
        expect(bucket.tryTake(at + wait * 1000)).toBe(true);
      }),
    );
  });
});
