import type { Clock } from "../../../app/ports/clock.js";
import type { LeaseAttempt, LeaseStore, LeaseView } from "../../../app/ports/lease-store.js";

interface LeaseRow {
  holder: string;
  generation: number;
  /** Epoch seconds by the store's clock. */
  expires_at: number;
}

/**
 * The lease within one process, judged by the injected clock (tests drive a manual one). Each
 * method runs to completion without yielding, which makes it as atomic as the SQL statements.
 */
export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, LeaseRow>();

  constructor(private readonly clock: Pick<Clock, "now"> = { now: () => Date.now() }) {}

  async acquire(name: string, holder: string, ttlSeconds: number): Promise<LeaseAttempt> {
    checkTtl(ttlSeconds);
    const now = this.nowSeconds();
    const row = this.leases.get(name);
    const live = row !== undefined && row.expires_at > now;
    if (live && row.holder !== holder) return { acquired: false, current: view(name, row, now) };
    const generation = row === undefined ? 1 : live ? row.generation : row.generation + 1;
    const next: LeaseRow = { holder, generation, expires_at: now + ttlSeconds };
    this.leases.set(name, next);
    return { acquired: true, lease: view(name, next, now) };
  }

  async renew(
    name: string,
    holder: string,
    generation: number,
    ttlSeconds: number,
  ): Promise<LeaseView | undefined> {
    checkTtl(ttlSeconds);
    const now = this.nowSeconds();
    const row = this.heldBy(name, holder, generation, now);
    if (!row) return undefined;
    row.expires_at = now + ttlSeconds;
    return view(name, row, now);
  }

  async release(name: string, holder: string, generation: number): Promise<boolean> {
    const now = this.nowSeconds();
    const row = this.heldBy(name, holder, generation, now);
    if (!row) return false;
    row.expires_at = now;
    return true;
  }

  async read(name: string): Promise<LeaseView | undefined> {
    const row = this.leases.get(name);
    return row && view(name, row, this.nowSeconds());
  }

  private heldBy(name: string, holder: string, generation: number, now: number): LeaseRow | undefined {
    const row = this.leases.get(name);
    return row && row.holder === holder && row.generation === generation && row.expires_at > now
      ? row
      : undefined;
  }

  private nowSeconds(): number {
    return this.clock.now() / 1000;
  }
}

function checkTtl(ttlSeconds: number): void {
  if (!(Number.isFinite(ttlSeconds) && ttlSeconds > 0)) {
    throw new RangeError(`lease TTL must be a positive number of seconds, got ${ttlSeconds}`);
  }
}

const view = (name: string, row: LeaseRow, now: number): LeaseView => ({
  name,
  holder: row.holder,
  generation: row.generation,
  expires_in: row.expires_at - now,
});
