import { describe, expect, it } from "vitest";
import { LoginLockout, PROXY_ATTEMPTS_FACTOR } from "../../../src/app/auth/login-lockout.js";

/** A clock the test moves by hand. */
class TestClock {
  at = 1_000_000;
  now(): number {
    return this.at;
  }
  monotonic(): number {
    return this.at;
  }
}

const settings = { maxAttempts: 3, windowSeconds: 60, lockoutSeconds: 30 };

function lockout() {
  const clock = new TestClock();
  return { clock, lockout: new LoginLockout(settings, clock) };
}

const fail = (l: LoginLockout, times: number, client: string | ((i: number) => string), proxy?: string) => {
  for (let i = 0; i < times; i++) l.recordFailure(typeof client === "string" ? client : client(i), proxy);
};

describe("the login lockout", () => {
  it("locks a direct client after max_attempts failures in the window, and no other", () => {
    const { lockout: l } = lockout();
    fail(l, 2, "203.0.113.1", undefined);
    expect(l.lockedFor("203.0.113.1", undefined)).toBe(0);
    fail(l, 1, "203.0.113.1", undefined);
    expect(l.lockedFor("203.0.113.1", undefined)).toBe(30);
    expect(l.lockedFor("203.0.113.2", undefined)).toBe(0);
  });

  it("forgets failures older than the window, and doubles a repeated lockout up to an hour", () => {
    const { clock, lockout: l } = lockout();
    fail(l, 2, "a", undefined);
    clock.at += 61_000;
    fail(l, 2, "a", undefined);
    expect(l.lockedFor("a", undefined)).toBe(0);
    fail(l, 1, "a", undefined);
    expect(l.lockedFor("a", undefined)).toBe(30);
    clock.at += 30_000;
    expect(l.lockedFor("a", undefined)).toBe(0);
    fail(l, 3, "a", undefined);
    expect(l.lockedFor("a", undefined)).toBe(60);
    for (let round = 0; round < 10; round++) {
      clock.at += 3_600_000;
      fail(l, 3, "a", undefined);
    }
    expect(l.lockedFor("a", undefined)).toBe(3600);
  });

  it("stops a trusted peer naming a new address on every attempt once the proxy's budget is spent", () => {
    const { lockout: l } = lockout();
    const budget = settings.maxAttempts * PROXY_ATTEMPTS_FACTOR;
    fail(l, budget - 1, (i) => `198.51.100.${i}`, "127.0.0.1");
    expect(l.lockedFor("198.51.100.250", "127.0.0.1")).toBe(0);
    fail(l, 1, "198.51.100.251", "127.0.0.1");
    // Any address named through that peer is refused now; other peers are not.
    expect(l.lockedFor("198.51.100.252", "127.0.0.1")).toBe(30);
    expect(l.lockedFor("198.51.100.252", "10.0.0.5")).toBe(0);
    expect(l.lockedFor("198.51.100.252", undefined)).toBe(0);
  });

  it("spends only the named address's budget through that peer: the address itself is not locked out", () => {
    const { lockout: l } = lockout();
    fail(l, settings.maxAttempts, "203.0.113.9", "127.0.0.1");
    expect(l.lockedFor("203.0.113.9", "127.0.0.1")).toBe(30);
    // The same client connecting directly, or through another proxy, may still try.
    expect(l.lockedFor("203.0.113.9", undefined)).toBe(0);
    expect(l.lockedFor("203.0.113.9", "10.0.0.5")).toBe(0);
    // And the peer itself has spent a tenth of its own budget, not all of it.
    expect(l.lockedFor("203.0.113.10", "127.0.0.1")).toBe(0);
  });
});
