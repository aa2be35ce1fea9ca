import { type Kysely, sql } from "kysely";
import type { LeaseAttempt, LeaseStore, LeaseView } from "../../../app/ports/lease-store.js";
import type { SqlDialectName } from "../sql-store.js";
import { databaseNow } from "./sql-helpers.js";
import type { StoreTables } from "./store-tables.js";

/**
 * The lease row judged by the database clock. The statements are plain SQL because each must be
 * one conditional write, and the same text runs on both dialects (only `now` differs).
 */
export class SqlLeaseStore implements LeaseStore {
  constructor(
    private readonly db: Kysely<StoreTables>,
    private readonly dialect: SqlDialectName,
  ) {}

  async acquire(name: string, holder: string, ttlSeconds: number): Promise<LeaseAttempt> {
    checkTtl(ttlSeconds);
    const now = databaseNow(this.dialect);
    // Absent: insert generation 1. Present: take it over when expired (new generation) or extend it
    // when the same holder still holds it (same generation); otherwise the WHERE leaves it alone and
    // nothing is returned.
    const result = await sql<LeaseView>`
      insert into leases (name, holder, generation, expires_at)
      values (${name}, ${holder}, 1, ${now} + ${ttlSeconds})
      on conflict (name) do update set
        holder = excluded.holder,
        generation = case
          when leases.holder = excluded.holder and leases.expires_at > ${now} then leases.generation
          else leases.generation + 1
        end,
        expires_at = excluded.expires_at
      where leases.expires_at <= ${now} or leases.holder = excluded.holder
      returning name, holder, generation, expires_at - ${now} as expires_in`.execute(this.db);
    const lease = result.rows[0];
    if (lease) return { acquired: true, lease: view(lease) };
    return { acquired: false, current: await this.read(name) };
  }

  async renew(
    name: string,
    holder: string,
    generation: number,
    ttlSeconds: number,
  ): Promise<LeaseView | undefined> {
    checkTtl(ttlSeconds);
    const now = databaseNow(this.dialect);
    const result = await sql<LeaseView>`
      update leases set expires_at = ${now} + ${ttlSeconds}
      where name = ${name} and holder = ${holder} and generation = ${generation} and expires_at > ${now}
      returning name, holder, generation, expires_at - ${now} as expires_in`.execute(this.db);
    const lease = result.rows[0];
    return lease && view(lease);
  }

  async release(name: string, holder: string, generation: number): Promise<boolean> {
    const now = databaseNow(this.dialect);
    // Expiring now (rather than deleting the row) keeps the generation, so the next term gets a new one.
    const result = await sql<{ name: string }>`
      update leases set expires_at = ${now}
      where name = ${name} and holder = ${holder} and generation = ${generation} and expires_at > ${now}
      returning name`.execute(this.db);
    return result.rows.length > 0;
  }

  async read(name: string): Promise<LeaseView | undefined> {
    const now = databaseNow(this.dialect);
    const result = await sql<LeaseView>`
      select name, holder, generation, expires_at - ${now} as expires_in
      from leases where name = ${name}`.execute(this.db);
    const lease = result.rows[0];
    return lease && view(lease);
  }
}

function checkTtl(ttlSeconds: number): void {
  if (!(Number.isFinite(ttlSeconds) && ttlSeconds > 0)) {
    throw new RangeError(`lease TTL must be a positive number of seconds, got ${ttlSeconds}`);
  }
}

/** Drivers may hand numbers back as strings in raw queries; the view is numbers only. */
const view = (row: LeaseView): LeaseView => ({
  name: row.name,
  holder: row.holder,
  generation: Number(row.generation),
  expires_in: Number(row.expires_in),
});
