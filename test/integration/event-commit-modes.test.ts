import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { GroupCommitOptions } from "../../src/adapters/store/batching-appender.js";
import { APPEND_LOCK_CLASS } from "../../src/adapters/store/postgres/postgres-batch-writer.js";
import { PostgresEventStore } from "../../src/adapters/store/postgres/postgres-event-store.js";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { SqliteEventStore } from "../../src/adapters/store/sqlite/sqlite-event-store.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import type { Storage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { DATABASE_URL, describePostgres, freshPostgres, freshSqlite } from "../support/backends.js";
import { ARITHMETIC, waitFor } from "../support/gateway.js";
import { callJson, connectHttp, type ToolResult } from "../support/mcp-client.js";

/**
 * `event_store.commit` end to end: with `before_answer` a tool call (gateway_call, or the front
 * door's tools/call) answers only once its ToolInvocationCompleted event is committed, refuses
 * with StoreUnavailableError while the store fails, and the queued events land once it is back;
 * with `after_answer` the answer leaves before the commit.
 */

/** The commit wait of these gateways: long enough for the checks below, short enough for a test. */
const COMMIT_WAIT_MS = 2_000;

const yaml = (commit: string, mode = "egress") => `
tool_access: {mode: ${mode}}
event_store: {commit: ${commit}}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;

interface Running {
  gateway: Gateway;
  app: FastifyInstance;
  client: Client;
}

const open: { running: Running; sql: SqlStore<unknown> }[] = [];
afterEach(async () => {
  for (const { running, sql } of open.splice(0)) {
    await running.client.close();
    await running.app.close();
    await running.gateway.shutdown();
    await sql.close();
  }
});

async function startOn(
  sql: SqlStore<unknown>,
  commit: string,
  eventOptions: GroupCommitOptions,
  mode = "egress",
): Promise<Running> {
  const eventStore =
    sql.dialect === "sqlite"
      ? new SqliteEventStore(sql, eventOptions)
      : new PostgresEventStore(sql, eventOptions);
  const storage: Storage = {
    eventStore,
    repositories: sqlRepositories(sql),
    description: sql.description,
    degraded: null,
    close: () => eventStore.close(),
  };
  const { config, env } = parseConfig(yaml(commit, mode), { env: { PATH: process.env.PATH } });
  const gateway = await createGateway({ config, env, logger: pino({ level: "silent" }), storage });
  const app = await gateway.http();
  const client = await connectHttp(await app.listen({ host: "127.0.0.1", port: 0 }));
  const running = { gateway, app, client };
  open.push({ running, sql });
  return running;
}

const add = (client: Client) =>
  callJson(client, "gateway_call", {
    calls: [{ mcp_server: "math", tool: "add", arguments: { a: 2, b: 3 } }],
  });

/** Whether a promise has settled, without waiting for it. */
function watch<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled, promise };
}

describe("event_store.commit on SQLite, with a batch delay no event would otherwise beat", () => {
  // A minute of batch delay and no end-of-turn write: only a waiting answer makes a batch go early.
  const lazy = { batchDelayMs: 60_000, idleCommitAfterMs: Number.POSITIVE_INFINITY };
  const completedIds = (path: string): string[] => {
    const db = new Database(path, { readonly: true });
    try {
      const rows = db
        .prepare("select payload from events where event_type = 'ToolInvocationCompleted'")
        .all() as { payload: string }[];
      return rows.map((row) => JSON.parse(row.payload).call_id);
    } finally {
      db.close();
    }
  };

  it("before_answer: every gateway_call answer finds its event already in the file", async () => {
    const sql = await freshSqlite<unknown>();
    const { client } = await startOn(sql, "before_answer", lazy);
    for (let i = 0; i < 5; i++) {
      const { json } = await add(client);
      expect(json.success).toBe(true);
      expect(completedIds(sql.path)).toContain(json.results[0].call_id);
    }
  });

  it("after_answer: the answer leaves first, the event follows with the batch", async () => {
    const sql = await freshSqlite<unknown>();
    const { client, gateway } = await startOn(sql, "after_answer", lazy);
    const { json } = await add(client);
    expect(json.success).toBe(true);
    expect(completedIds(sql.path)).not.toContain(json.results[0].call_id);
    await gateway.services.eventStore.flush();
    expect(completedIds(sql.path)).toContain(json.results[0].call_id);
  });
});

await describePostgres("event_store.commit on PostgreSQL", () => {
  /** A connection of the test's own to the gateway's schema. */
  async function connect(schema: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`set search_path to ${schema}`);
    return client;
  }

  /** Takes the append lock in a transaction of `db`: the gateway's batches wait until `release`. */
  async function holdAppendLock(db: pg.Client) {
    await db.query("begin");
    await db.query(`select pg_advisory_xact_lock(${APPEND_LOCK_CLASS}, 'events'::regclass::oid::int4)`);
    return { release: () => db.query("commit") };
  }

  /** Resolves once a batch of the gateway waits for the append lock: its events are at the commit. */
  async function batchWaiting(db: pg.Client): Promise<void> {
    await waitFor(async () => {
      const { rows } = await db.query(
        `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted
           and classid = ${APPEND_LOCK_CLASS} and objid = 'events'::regclass::oid`,
      );
      return rows[0].n > 0;
    });
  }

  async function completed(db: pg.Client): Promise<{ call_id: string; tool_name: string }[]> {
    const { rows } = await db.query(
      "select payload from events where event_type = 'ToolInvocationCompleted' order by position",
    );
    return rows.map((row: { payload: string }) => JSON.parse(row.payload));
  }

  it("before_answer, gateway_call: no answer while the event waits for its commit; 503 and fail-fast while the store fails; the queued event lands once it is back", async () => {
    const sql = await freshPostgres<unknown>();
    const db = await connect(sql.schema);
    try {
      const { client, app } = await startOn(sql, "before_answer", { commitWaitMs: COMMIT_WAIT_MS });
      expect((await callJson(client, "gateway_start", { mcp_server: "math" })).json).toMatchObject({
        state: "ready",
      });

      const lock = await holdAppendLock(db);
      const call = watch(add(client));
      await batchWaiting(db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(call.settled()).toBe(false);
      await lock.release();
      const { json } = await call.promise;
      expect(json.success).toBe(true);
      // Read the moment the answer arrived: the event is committed already.
      expect((await completed(db)).map((e) => e.call_id)).toContain(json.results[0].call_id);

      // The store fails: the call that finds out waits at most the commit wait, then answers 503.
      const before = (await completed(db)).length;
      await db.query("alter table events rename to events_away");
      const began = performance.now();
      const waited = await add(client);
      expect(performance.now() - began).toBeLessThan(COMMIT_WAIT_MS + 1_500);
      expect(waited.json).toMatchObject({
        error_type: "StoreUnavailableError",
        details: { store: "event store", retry_after: expect.any(Number) },
      });
      // Known failing now: refused at once, before reaching the upstream (nothing to record).
      const fastBegan = performance.now();
      const refused = await add(client);
      expect(performance.now() - fastBegan).toBeLessThan(COMMIT_WAIT_MS);
      expect(refused.json).toMatchObject({ error_type: "StoreUnavailableError" });
      const rest = await app.inject({ method: "POST", url: "/api/mcp_servers/math/start" });
      expect(rest.statusCode).toBe(503);
      expect(rest.json()).toMatchObject({ error: { code: "StoreUnavailableError" } });
      expect(Number(rest.headers["retry-after"])).toBeGreaterThanOrEqual(1);

      await db.query("alter table events_away rename to events");
      // The event of the call that ran is recorded at the next retry; the refused one never ran.
      await waitFor(async () => (await completed(db)).length === before + 1, 15_000);
      await waitFor(async () => (await add(client)).json.success === true, 15_000);
      expect((await completed(db)).length).toBeGreaterThanOrEqual(before + 2);
    } finally {
      await db.end();
    }
  }, 60_000);

  it("after_answer, gateway_call: the answer leaves while its event still waits for the commit", async () => {
    const sql = await freshPostgres<unknown>();
    const db = await connect(sql.schema);
    try {
      const { client } = await startOn(sql, "after_answer", { commitWaitMs: COMMIT_WAIT_MS });
      await callJson(client, "gateway_start", { mcp_server: "math" });
      const lock = await holdAppendLock(db);
      let answered: Awaited<ReturnType<typeof add>>;
      try {
        answered = await add(client);
        expect(answered.json.success).toBe(true);
        // Still locked out: nothing of that call can be in the table yet.
        expect(await completed(db)).toEqual([]);
      } finally {
        await lock.release();
      }
      await waitFor(async () =>
        (await completed(db)).some((e) => e.call_id === answered.json.results[0].call_id),
      );
    } finally {
      await db.end();
    }
  }, 30_000);

  it("before_answer, front door tools/call: the relayed answer waits for its event's commit", async () => {
    const sql = await freshPostgres<unknown>();
    const db = await connect(sql.schema);
    try {
      const { client, gateway } = await startOn(
        sql,
        "before_answer",
        { commitWaitMs: COMMIT_WAIT_MS },
        "front_door",
      );
      // The front door starts its servers with the background work.
      gateway.startBackground();
      await waitFor(async () => (await client.listTools()).tools.some((tool) => tool.name === "add"));
      const lock = await holdAppendLock(db);
      const call = watch(client.callTool({ name: "add", arguments: { a: 1, b: 1 } }) as Promise<ToolResult>);
      await batchWaiting(db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(call.settled()).toBe(false);
      await lock.release();
      const result = await call.promise;
      expect(result.content[0]?.text).toBe("2");
      expect((await completed(db)).filter((e) => e.tool_name === "add")).toHaveLength(1);
    } finally {
      await db.end();
    }
  }, 30_000);
});
