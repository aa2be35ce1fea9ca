import type { Clock } from "../ports/clock.js";

/** `auth.rate_limit`: failures allowed per window, and the first lockout's length. */
export interface LockoutSettings {
  readonly maxAttempts: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
}

/** Decisions "Identity": repeated lockouts double, up to an hour. */
const MAX_LOCKOUT_S = 3600;
/** Most addresses tracked per kind; past it, the stalest entry is forgotten first. */
const MAX_TRACKED = 100_000;
/**
 * A trusted proxy carries many clients, so its own budget is this multiple of `max_attempts`
 * (**decided**): large enough that a few clients behind it locking themselves out do not lock the
 * proxy, small enough that a peer naming a new address on every attempt guesses at most ten
 * budgets' worth per window before all its requests are refused.
 */
export const PROXY_ATTEMPTS_FACTOR = 10;

interface Attempts {
  /** Monotonic milliseconds of the failures within the window. */
  failures: number[];
  /** Monotonic milliseconds the lockout ends, or 0. */
  lockedUntil: number;
  /** Lockouts so far: each doubles the next. */
  lockouts: number;
  lastSeen: number;
}

/** Failures counted per key against one threshold, with doubling lockouts. */
class Budgets {
  private readonly byKey = new Map<string, Attempts>();

  constructor(
    private readonly threshold: number,
    private readonly settings: LockoutSettings,
  ) {}

  lockedFor(key: string, now: number): number {
    const entry = this.byKey.get(key);
    if (!entry) return 0;
    const left = entry.lockedUntil - now;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  recordFailure(key: string, now: number): void {
    let entry = this.byKey.get(key);
    if (!entry) {
      if (this.byKey.size >= MAX_TRACKED) this.forgetStalest();
      entry = { failures: [], lockedUntil: 0, lockouts: 0, lastSeen: now };
      this.byKey.set(key, entry);
    }
    entry.lastSeen = now;
    const windowStart = now - this.settings.windowSeconds * 1000;
    entry.failures = entry.failures.filter((at) => at > windowStart);
    entry.failures.push(now);
    if (entry.failures.length < this.threshold) return;
    const seconds = Math.min(MAX_LOCKOUT_S, this.settings.lockoutSeconds * 2 ** entry.lockouts);
    entry.lockouts++;
    entry.lockedUntil = now + seconds * 1000;
    entry.failures = [];
  }

  private forgetStalest(): void {
    let stalest: [string, Attempts] | undefined;
    for (const item of this.byKey) if (!stalest || item[1].lastSeen < stalest[1].lastSeen) stalest = item;
    if (stalest) this.byKey.delete(stalest[0]);
  }
}

/**
 * The login-attempt lockout: after `maxAttempts` failed authentications within `windowSeconds`
 * from one client, that client is refused for `lockoutSeconds`, doubling on every repeat, capped
 * at one hour. Per replica, in memory; measured on the monotonic clock.
 *
 * A client is its address as seen through its direct peer: the address alone for a peer that is
 * not trusted, the pair (proxy, address) for one that arrives through a trusted proxy. So an
 * address a trusted peer names spends only that address's budget through that peer: a local
 * process naming a remote address cannot lock out the remote client connecting directly or
 * through another proxy. Besides, every failure through a trusted proxy counts against the proxy
 * itself, with {@link PROXY_ATTEMPTS_FACTOR} times the budget: a peer that names a new address on
 * every attempt is stopped too. A request is refused while either budget it spends is locked.
 */
export class LoginLockout {
  private readonly clients: Budgets;
  private readonly proxies: Budgets;

  constructor(
    settings: LockoutSettings,
    private readonly clock: Clock,
  ) {
    this.clients = new Budgets(settings.maxAttempts, settings);
    this.proxies = new Budgets(settings.maxAttempts * PROXY_ATTEMPTS_FACTOR, settings);
  }

  /**
   * Seconds an attempt stays locked out (the longer of the budgets it spends), rounded up; 0 when
   * it may try. `client` is the client's address: the peer's, or the one a trusted proxy named
   * (`X-Forwarded-For`); `proxy` the direct peer when it is a trusted proxy (`MCP_TRUSTED_PROXIES`),
   * whether or not it named another address (a peer trusted to name clients can name any),
   * undefined for a peer that is not trusted.
   */
  lockedFor(client: string, proxy: string | undefined): number {
    const now = this.clock.monotonic();
    const locked = this.clients.lockedFor(clientKey(client, proxy), now);
    return proxy === undefined ? locked : Math.max(locked, this.proxies.lockedFor(proxy, now));
  }

  /** Counts a failed attempt against the client (through its proxy) and the proxy; see {@link lockedFor}. */
  recordFailure(client: string, proxy: string | undefined): void {
    const now = this.clock.monotonic();
    this.clients.recordFailure(clientKey(client, proxy), now);
    if (proxy !== undefined) this.proxies.recordFailure(proxy, now);
  }
}

/** Addresses hold no space (they are parsed before they get here), so the pair reads unambiguously. */
function clientKey(client: string, proxy: string | undefined): string {
  return proxy === undefined ? client : `${client} via ${proxy}`;
}
