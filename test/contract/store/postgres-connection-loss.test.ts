import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPostgres, type PostgresStore } from "../../../src/adapters/store/postgres/open-postgres.js";
import { GatewayError } from "../../../src/domain/errors.js";
import { adminQuery, DATABASE_URL, describePostgres, postgresProxy } from "../../support/backends.js";
import type { TcpProxy } from "../../support/tcp-proxy.js";

const schema = `t_connloss_${randomBytes(5).toString("hex")}`;

await describePostgres("a PostgreSQL store whose connections drop", () => {
  let proxy: TcpProxy;
  let store: PostgresStore<unknown>;
  const outcomes: string[] = [];

  beforeAll(async () => {
    proxy = await postgresProxy();
    store = await openPostgres({
      connection: { connectionString: proxy.rewrite(DATABASE_URL) },
      schema,
      maxConnections: 2,
      outcomes: { reached: () => outcomes.push("reached"), unreachable: () => outcomes.push("unreachable") },
    });
  }, 30_000);

  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await adminQuery(`drop schema if exists ${schema} cascade`);
  });

  it("survives a checked-out connection dropping between statements, answers StoreUnavailableError, and recovers", async () => {
    let failure: unknown;
    await store.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        // Checked out and idle: pg emits 'error' on this client, which pg-pool no longer listens to.
        await proxy.drop();
        await sleep(200);
        await sql`select 1`.execute(trx);
      })
      .catch((error: unknown) => {
        failure = error;
      });
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({
      type: "StoreUnavailableError",
      status: 503,
      details: { store: "database", retry_after: expect.any(Number) },
    });
    expect((failure as Error).message).not.toMatch(/ECONN|terminated|127\.0\.0\.1/);
    expect(outcomes).toContain("unreachable");
    // A connection refused outright fails the same way.
    await expect(store.ping()).rejects.toMatchObject({ type: "StoreUnavailableError" });

    await proxy.accept();
    outcomes.length = 0;
    await store.ping();
    expect(outcomes).toEqual(["reached"]);
  });

  it("leaves an ordinary SQL error as it is and counts the database as reached", async () => {
    outcomes.length = 0;
    const error = await sql`select * from no_such_table`.execute(store.db).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(GatewayError);
    expect((error as { code?: string }).code).toBe("42P01");
    expect(outcomes).toEqual(["reached"]);
  });
});
