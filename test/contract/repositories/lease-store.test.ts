import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryRepositories } from "../../../src/adapters/store/memory/memory-repositories.js";
import { sqlRepositories } from "../../../src/adapters/store/sql/sql-repositories.js";
import type { LeaseStore } from "../../../src/app/ports/lease-store.js";
import {
  BACKENDS,
  type BackendName,
  describePostgres,
  freshPostgres,
  freshSqlite,
} from "../../support/backends.js";

/**
 * The lease under test and a way to let its clock move: a manual clock for memory, real time for
 * SQL (the database clock cannot be driven, so TTLs there are short).
 */
interface Subject {
  lease: LeaseStore;
  passTime(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function open(backend: BackendName): Promise<Subject> {
  if (backend === "memory") {
    let now = 1_700_000_000_000;
    const repos = memoryRepositories({ clock: { now: () => now } });
    return {
      lease: repos.lease,
      passTime: async (ms) => {
        now += ms;
      },
      close: async () => undefined,
    };
  }
  const store = backend === "sqlite" ? await freshSqlite() : await freshPostgres();
  return { lease: sqlRepositories(store).lease, passTime: (ms) => sleep(ms), close: () => store.close() };
}
const describeNow = async (name: string, body: () => void) => describe(name, body);

/** Long enough that a few statements never outlast it, short enough to wait out in a test. */
const TTL_S = 0.6;
/** Waiting this long lets a TTL_S lease expire with margin for timer slack. */
const PAST_TTL_MS = 800;
const NAME = "management";

for (const backend of BACKENDS) {
  await (backend === "postgres" ? describePostgres : describeNow)(`LeaseStore on ${backend}`, () => {
    let lease: LeaseStore;
    let passTime: (ms: number) => Promise<void>;
    let close: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ lease, passTime, close } = await open(backend));
    });
    afterEach(async () => {
      await close?.();
      close = undefined;
    });

    it("grants a free lease with generation 1 for the TTL", async () => {
      const attempt = await lease.acquire(NAME, "replica-a", 15);
      expect(attempt.acquired).toBe(true);
      if (!attempt.acquired) return;
      expect(attempt.lease).toMatchObject({ name: NAME, holder: "replica-a", generation: 1 });
      expect(attempt.lease.expires_in).toBeGreaterThan(14);
      expect(attempt.lease.expires_in).toBeLessThanOrEqual(15);
      expect(await lease.read(NAME)).toMatchObject({ holder: "replica-a", generation: 1 });
    });

    it("refuses a second contender while the lease is held, naming the holder", async () => {
      await lease.acquire(NAME, "replica-a", 15);
      const attempt = await lease.acquire(NAME, "replica-b", 15);
      expect(attempt.acquired).toBe(false);
      expect(attempt.acquired ? undefined : attempt.current).toMatchObject({
        holder: "replica-a",
        generation: 1,
      });
    });

    it("lets exactly one of two simultaneous contenders win", async () => {
      const [a, b] = await Promise.all([
        lease.acquire(NAME, "replica-a", 15),
        lease.acquire(NAME, "replica-b", 15),
      ]);
      expect([a.acquired, b.acquired].filter(Boolean)).toHaveLength(1);
      const winner = a.acquired ? "replica-a" : "replica-b";
      expect((await lease.read(NAME))?.holder).toBe(winner);
    });

    it("extends a live lease re-acquired by its holder without changing the generation", async () => {
      await lease.acquire(NAME, "replica-a", TTL_S);
      const again = await lease.acquire(NAME, "replica-a", 15);
      expect(again.acquired && again.lease.generation).toBe(1);
      expect(again.acquired && again.lease.expires_in).toBeGreaterThan(14);
    });

    it("hands an expired lease to another contender with the next generation", async () => {
      await lease.acquire(NAME, "replica-a", TTL_S);
      await passTime(PAST_TTL_MS);
      expect((await lease.read(NAME))?.expires_in).toBeLessThanOrEqual(0);
      const takeover = await lease.acquire(NAME, "replica-b", 15);
      expect(takeover.acquired && takeover.lease).toMatchObject({ holder: "replica-b", generation: 2 });
    });

    it("fences the old holder after a takeover: its renew and release fail and change nothing", async () => {
      await lease.acquire(NAME, "replica-a", TTL_S);
      await passTime(PAST_TTL_MS);
      await lease.acquire(NAME, "replica-b", 15);
      expect(await lease.renew(NAME, "replica-a", 1, 15)).toBeUndefined();
      expect(await lease.release(NAME, "replica-a", 1)).toBe(false);
      const current = await lease.read(NAME);
      expect(current).toMatchObject({ holder: "replica-b", generation: 2 });
      expect(current?.expires_in).toBeGreaterThan(14);
    });

    it("renews only for the holder with the current generation, before expiry", async () => {
      await lease.acquire(NAME, "replica-a", TTL_S);
      const renewed = await lease.renew(NAME, "replica-a", 1, 15);
      expect(renewed).toMatchObject({ holder: "replica-a", generation: 1 });
      expect(renewed?.expires_in).toBeGreaterThan(14);
      expect(await lease.renew(NAME, "replica-a", 2, 15)).toBeUndefined();
      expect(await lease.renew(NAME, "replica-b", 1, 15)).toBeUndefined();
      expect(await lease.renew("other", "replica-a", 1, 15)).toBeUndefined();
    });

    it("refuses to renew an expired lease even when nobody took it over", async () => {
      await lease.acquire(NAME, "replica-a", TTL_S);
      await passTime(PAST_TTL_MS);
      expect(await lease.renew(NAME, "replica-a", 1, 15)).toBeUndefined();
      const back = await lease.acquire(NAME, "replica-a", 15);
      expect(back.acquired && back.lease.generation).toBe(2);
    });

    it("release expires the lease at once and the next term never reuses its generation", async () => {
      await lease.acquire(NAME, "replica-a", 15);
      expect(await lease.release(NAME, "replica-a", 1)).toBe(true);
      expect(await lease.release(NAME, "replica-a", 1)).toBe(false);
      const released = await lease.read(NAME);
      expect(released).toMatchObject({ holder: "replica-a", generation: 1 });
      expect(released?.expires_in).toBeLessThanOrEqual(0);
      const same = await lease.acquire(NAME, "replica-a", 15);
      expect(same.acquired && same.lease.generation).toBe(2);
      await lease.release(NAME, "replica-a", 2);
      const other = await lease.acquire(NAME, "replica-b", 15);
      expect(other.acquired && other.lease).toMatchObject({ holder: "replica-b", generation: 3 });
    });

    it("keeps leases of different names independent and reads nothing for an unknown name", async () => {
      await lease.acquire("one", "replica-a", 15);
      const two = await lease.acquire("two", "replica-b", 15);
      expect(two.acquired && two.lease.generation).toBe(1);
      expect(await lease.read("three")).toBeUndefined();
    });

    it("rejects a TTL that is not a positive number", async () => {
      await expect(lease.acquire(NAME, "replica-a", 0)).rejects.toThrow(RangeError);
      await expect(lease.acquire(NAME, "replica-a", Number.NaN)).rejects.toThrow(RangeError);
      await lease.acquire(NAME, "replica-a", 15);
      await expect(lease.renew(NAME, "replica-a", 1, -1)).rejects.toThrow(RangeError);
    });
  });
}
