import type { Clock } from "../ports/clock.js";

/** `auth.rate_limit`: failures allowed per window, and the first lockout's length. */
export interface LockoutSettings {
  readonly maxAttempts: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
}

/** Decisions "Identity": repeated lockouts double, up to an hour. */
const MAX_LOCKOUT_S = 3600;
/** Most client addresses tracked; past it, the stalest entry is forgotten first. */
const MAX_TRACKED = 100_000;

interface Attempts {
  /** Monotonic milliseconds of the failures within the window. */
  failures: number[];
  /** Monotonic milliseconds the lockout ends, or 0. */
  lockedUntil: number;
  /** Lockouts so far: each doubles the next. */
  lockouts: number;
  lastSeen: number;
}

/**
 * The login-attempt lockout: after `maxAttempts` failed authentications within `windowSeconds`
 * from one client address, that address is refused for `lockoutSeconds`, doubling on every repeat,
 * capped at one hour. Per replica, in memory; measured on the monotonic clock.
 */
export class LoginLockout {
  private readonly byAddress = new Map<string, Attempts>();

  constructor(
    private readonly settings: LockoutSettings,
    private readonly clock: Clock,
  ) {}

  /** Seconds the address stays locked out, rounded up; 0 when it may try. */
  lockedFor(address: string): number {
    const entry = this.byAddress.get(address);
    if (!entry) return 0;
    const left = entry.lockedUntil - this.clock.monotonic();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  recordFailure(address: string): void {
    const now = this.clock.monotonic();
    let entry = this.byAddress.get(address);
    if (!entry) {
      if (this.byAddress.size >= MAX_TRACKED) this.forgetStalest();
      entry = { failures: [], lockedUntil: 0, lockouts: 0, lastSeen: now };
      this.byAddress.set(address, entry);
    }
    entry.lastSeen = now;
    const windowStart = now - this.settings.windowSeconds * 1000;
    entry.failures = entry.failures.filter((at) => at > windowStart);
    entry.failures.push(now);
    if (entry.failures.length < this.settings.maxAttempts) return;
    const seconds = Math.min(MAX_LOCKOUT_S, this.settings.lockoutSeconds * 2 ** entry.lockouts);
    entry.lockouts++;
    entry.lockedUntil = now + seconds * 1000;
    entry.failures = [];
  }

  private forgetStalest(): void {
    let stalest: [string, Attempts] | undefined;
    for (const item of this.byAddress) if (!stalest || item[1].lastSeen < stalest[1].lastSeen) stalest = item;
    if (stalest) this.byAddress.delete(stalest[0]);
  }
}
