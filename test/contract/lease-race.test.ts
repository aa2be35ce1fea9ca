import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgres } from "../../src/adapters/store/postgres/open-postgres.js";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import type { LeaseStore } from "../../src/app/ports/lease-store.js";
import { DATABASE_URL, describePostgres, freshPostgres } from "../support/backends.js";

/** As many contenders as a large fleet restarting at once; each on its own connection. */
const CONTENDERS = 16;

await describePostgres("the management lease under a race on PostgreSQL", () => {
  let schemaOwner: SqlStore<unknown> & { schema: string };
  const stores: SqlStore<unknown>[] = [];
  const leases: LeaseStore[] = [];

  beforeAll(async () => {
    schemaOwner = await freshPostgres();
    for (let i = 0; i < CONTENDERS; i++) {
      const store = await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: schemaOwner.schema,
        maxConnections: 1,
      });
      stores.push(store);
      const lease = sqlRepositories(store).lease;
      // The connection is open before the race: the acquires below are not serialized by connecting.
      await lease.read("warm-up");
      leases.push(lease);
    }
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await schemaOwner?.close();
  });

  it("lets exactly one of sixteen concurrent acquirers of a cold lease win, in generation 1", async () => {
    const attempts = await Promise.all(
      leases.map((lease, index) => lease.acquire("cold", `replica-${index}`, 30)),
    );
    const winners = attempts.flatMap((attempt, index) => (attempt.acquired ? [{ attempt, index }] : []));
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(winner.attempt.acquired && winner.attempt.lease.generation).toBe(1);
    // Every loser was told who holds it: the winner, in the same term.
    for (const attempt of attempts) {
      if (attempt.acquired) continue;
      expect(attempt.current?.holder).toBe(`replica-${winner.index}`);
      expect(attempt.current?.generation).toBe(1);
    }
    const row = await leases[0]!.read("cold");
    expect(row?.holder).toBe(`replica-${winner.index}`);
  });

  it("lets exactly one win again when sixteen race for a released lease, in the next generation", async () => {
    const first = await leases[0]!.acquire("released", "replica-0", 30);
    expect(first.acquired).toBe(true);
    expect(await leases[0]!.release("released", "replica-0", 1)).toBe(true);
    const attempts = await Promise.all(
      leases.map((lease, index) => lease.acquire("released", `contender-${index}`, 30)),
    );
    const winners = attempts.filter((attempt) => attempt.acquired);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.acquired && winners[0]!.lease.generation).toBe(2);
  });
});
