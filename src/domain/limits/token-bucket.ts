/**
 * Tolerance when comparing fractional token counts: refilling for exactly the advertised retry time
 * must admit the call even when the floating-point sum lands a hair below a whole token.
 */
const EPSILON = 1e-9;

/** Settings of a token bucket: `rps` tokens per second refill it up to `burst`. */
export interface BucketSettings {
  readonly rps: number;
  readonly burst: number;
}

/**
 * A token bucket over monotonic milliseconds passed in by the caller (the domain never reads time).
 * It starts full with `burst` tokens; each admitted call takes one; it refills at `rps` tokens per
 * second up to `burst`. Guarantees: it never holds more than `burst` tokens, and a clock that goes
 * backwards mints nothing (refilling resumes only once time passes the latest instant seen), so over
 * any stretch of `t` seconds at most `burst + rps * t` calls are admitted.
 */
export class TokenBucket {
  private tokens: number;
  /** The latest instant seen: refills count time after it only. */
  private last: number;

  constructor(
    readonly settings: BucketSettings,
    now: number,
  ) {
    assertSettings(settings);
    this.tokens = settings.burst;
    this.last = now;
  }

  get limit(): number {
    return this.settings.burst;
  }

  /** Tokens held at `now` (fractional while refilling). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /** Whether `count` tokens are held at `now`, without taking them. */
  canTake(now: number, count = 1): boolean {
    return this.available(now) + EPSILON >= count;
  }

  /** Takes `count` tokens if held at `now`; takes nothing otherwise. */
  tryTake(now: number, count = 1): boolean {
    if (!this.canTake(now, count)) return false;
    this.tokens = Math.max(0, this.tokens - count);
    return true;
  }

  /** Seconds until `count` tokens are held (0 when they are now). */
  retryAfterSeconds(now: number, count = 1): number {
    const missing = count - this.available(now);
    return missing <= EPSILON ? 0 : missing / this.settings.rps;
  }

  /** Full again: forgetting the bucket loses nothing, as a new one starts full. */
  isFull(now: number): boolean {
    return this.available(now) + EPSILON >= this.settings.burst;
  }

  private refill(now: number): void {
    if (!(now > this.last)) return;
    const minted = ((now - this.last) * this.settings.rps) / 1000;
    this.tokens = Math.min(this.settings.burst, this.tokens + minted);
    this.last = now;
  }
}

/** Refuses settings that would make a bucket meaningless, naming the field and the rule. */
export function assertSettings(settings: BucketSettings): void {
  if (!(Number.isFinite(settings.rps) && settings.rps > 0)) {
    throw new RangeError(`token bucket rps must be a finite number greater than 0 (got ${settings.rps})`);
  }
  if (!(Number.isFinite(settings.burst) && settings.burst >= 1)) {
    throw new RangeError(`token bucket burst must be a finite number of at least 1 (got ${settings.burst})`);
  }
}

/**
 * Drops the buckets that are full at `now`. A dropped bucket is recreated full on its next use, so
 * memory stays bounded by the keys used within one refill period without letting anyone skip a wait.
 */
export function dropRefilled<K>(buckets: Map<K, TokenBucket>, now: number): void {
  for (const [key, bucket] of buckets) if (bucket.isFull(now)) buckets.delete(key);
}
