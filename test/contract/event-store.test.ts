import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BatchFailure, GroupCommitOptions } from "../../src/adapters/store/batching-appender.js";
import { MemoryEventLog, MemoryEventStore } from "../../src/adapters/store/memory/memory-event-store.js";
import { openPostgresEventStore } from "../../src/adapters/store/postgres/postgres-event-store.js";
import { openSqliteEventStore } from "../../src/adapters/store/sqlite/sqlite-event-store.js";
import type { EventStore, StoredEvent } from "../../src/app/ports/event-store.js";
import type { DomainEvent } from "../../src/domain/events.js";
import {
  adminQuery,
  BACKENDS,
  type BackendName,
  DATABASE_URL,
  describePostgres,
} from "../support/backends.js";

/** One database of a backend; every `open` is another store (another connection, replica) on it. */
interface Backend {
  open(options?: GroupCommitOptions): Promise<EventStore>;
  /** Makes the `events` table unreachable for writers until `repair` (null: the backend cannot fail). */
  breakTable: (() => Promise<void>) | null;
  repairTable: () => Promise<void>;
  dispose(): Promise<void>;
}

function memoryBackend(): Backend {
  const log = new MemoryEventLog();
  return {
    open: async (options) => new MemoryEventStore({ ...options, log }),
    breakTable: null,
    repairTable: async () => undefined,
    dispose: async () => undefined,
  };
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), "airlock-events-"));
  const path = join(dir, "events.db");
  const rename = (from: string, to: string) => {
    const db = new Database(path);
    try {
      db.exec(`alter table ${from} rename to ${to}`);
    } finally {
      db.close();
    }
  };
  return {
    open: (options) => openSqliteEventStore({ path, ...options }),
    breakTable: async () => rename("events", "events_away"),
    repairTable: async () => rename("events_away", "events"),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const run = async (statement: string) => {
    await adminQuery(statement);
  };
  return {
    open: (options) =>
      openPostgresEventStore({
        connection: { connectionString: DATABASE_URL },
        schema,
        maxConnections: 2,
        ...options,
      }),
    breakTable: () => run(`alter table ${schema}.events rename to events_away`),
    repairTable: () => run(`alter table ${schema}.events_away rename to events`),
    dispose: () => run(`drop schema if exists ${schema} cascade`),
  };
}

const FACTORIES: Record<BackendName, () => Backend> = {
  memory: memoryBackend,
  sqlite: sqliteBackend,
  postgres: postgresBackend,
};

let counter = 0;

function toolEvent(producer = "replica-a"): DomainEvent {
  counter += 1;
  return {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: `call-${counter}`,
    duration_ms: counter % 97,
    result_size_bytes: 12,
    event_id: randomUUID(),
    occurred_at: 1_763_000_000.123456 + counter / 1000,
    produced_by: producer,
  };
}

function healthEvent(): DomainEvent {
  return {
    type: "HealthCheckPassed",
    mcp_server_id: "math",
    duration_ms: 3,
    event_id: randomUUID(),
    occurred_at: 1_763_000_000.5,
    produced_by: "replica-a",
  };
}

/** Everything in the store, page by page, so that assertions see more than one default page. */
async function readEverything(store: EventStore): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (;;) {
    const page = await store.readAll({ fromPosition: all.length + 1, limit: 1000 });
    all.push(...page);
    if (page.length < 1000) return all;
  }
}

function expectGapFree(events: readonly StoredEvent[]): void {
  expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
  const versions = new Map<string, number[]>();
  for (const e of events) versions.set(e.stream_id, [...(versions.get(e.stream_id) ?? []), e.stream_version]);
  for (const list of versions.values()) expect(list).toEqual(list.map((_, i) => i + 1));
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

function contract(name: BackendName): void {
  let backend: Backend;
  let opened: EventStore[];
  const open = async (options?: GroupCommitOptions) => {
    const store = await backend.open(options);
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    backend = FACTORIES[name]();
    opened = [];
  });
  afterEach(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    await backend.dispose();
  });

  it(`says whether it is durable (${name === "memory" ? "not" : "it is"})`, async () => {
    const store = await open();
    expect(store.durable).toBe(name !== "memory");
  });

  it("reads back flushed events whole, with positions and versions from 1", async () => {
    const store = await open();
    const a1 = { ...toolEvent(), tool_name: 'naïve ✓ "quoted"' };
    const a2 = toolEvent();
    const b1 = healthEvent();
    store.append("server:a", [a1, a2]);
    store.append("server:b", [b1]);
    await store.flush();

    expect(await store.readAll()).toEqual([
      { position: 1, stream_id: "server:a", stream_version: 1, event: a1 },
      { position: 2, stream_id: "server:a", stream_version: 2, event: a2 },
      { position: 3, stream_id: "server:b", stream_version: 1, event: b1 },
    ]);
    expect(await store.readStream("server:b")).toEqual([
      { position: 3, stream_id: "server:b", stream_version: 1, event: b1 },
    ]);
    expect(await store.readStream("server:none")).toEqual([]);
  });

  it("keeps positions and per-stream versions gap-free across many batches", async () => {
    const store = await open({ batchSize: 7 });
    for (let i = 0; i < 300; i++)
      store.append(`s${i % 13}`, i % 5 === 0 ? [toolEvent(), toolEvent()] : [toolEvent()]);
    await store.flush();
    const all = await readEverything(store);
    expect(all).toHaveLength(360);
    expectGapFree(all);
  });

  it("stores events in append order, even from many concurrent producers", async () => {
    const store = await open({ batchSize: 16 });
    const appended: string[] = [];
    const producer = async (stream: string) => {
      for (let i = 0; i < 40; i++) {
        const events = i % 3 === 0 ? [toolEvent(), toolEvent()] : [toolEvent()];
        store.append(stream, events);
        appended.push(...events.map((e) => e.event_id));
        // Yield in varying ways so producers interleave with each other and with batch writes.
        if (i % 4 === 0) await new Promise((r) => setTimeout(r, Math.random() * 3));
        else await nextTurn();
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => producer(`stream-${i}`)));
    await store.flush();

    const all = await readEverything(store);
    expect(all.map((e) => e.event.event_id)).toEqual(appended);
    expectGapFree(all);
  });

  it("reads from a position or version inclusively, at most `limit`, 100 by default", async () => {
    const store = await open();
    for (let i = 0; i < 130; i++) store.append(i % 2 === 0 ? "even" : "odd", [toolEvent()]);
    await store.flush();

    const fromTen = await store.readAll({ fromPosition: 10, limit: 5 });
    expect(fromTen.map((e) => e.position)).toEqual([10, 11, 12, 13, 14]);
    expect(await store.readAll()).toHaveLength(100);
    expect(await store.readAll({ fromPosition: 131 })).toEqual([]);
    expect(await store.readAll({ limit: 0 })).toEqual([]);

    const even = await store.readStream("even", { fromVersion: 3, limit: 4 });
    expect(even.map((e) => e.stream_version)).toEqual([3, 4, 5, 6]);
    expect(even.map((e) => e.position)).toEqual([5, 7, 9, 11]);
    expect(await store.readStream("even", { fromVersion: 60 })).toHaveLength(6);
    expect(await store.readStream("odd")).toHaveLength(65);
    // Beyond any version a stream can reach (and beyond what PostgreSQL's integer column compares with).
    expect(await store.readStream("even", { fromVersion: 2 ** 31 })).toEqual([]);
    expect(await store.readStream("even", { fromVersion: Number.MAX_SAFE_INTEGER })).toEqual([]);
    expect(await store.readAll({ fromPosition: Number.MAX_SAFE_INTEGER })).toEqual([]);
  });

  it("filters a stream by type without counting the skipped events towards the limit", async () => {
    const store = await open();
    for (let i = 0; i < 20; i++) store.append("server:math", [i % 4 === 0 ? toolEvent() : healthEvent()]);
    await store.flush();

    const tools = await store.readStream("server:math", { types: ["ToolInvocationCompleted"], limit: 3 });
    expect(tools.map((e) => e.stream_version)).toEqual([1, 5, 9]);
    expect(tools.every((e) => e.event.type === "ToolInvocationCompleted")).toBe(true);

    const later = await store.readStream("server:math", {
      types: ["ToolInvocationCompleted"],
      fromVersion: 6,
    });
    expect(later.map((e) => e.stream_version)).toEqual([9, 13, 17]);
    const both = await store.readStream("server:math", {
      types: ["ToolInvocationCompleted", "HealthCheckPassed"],
    });
    expect(both).toHaveLength(20);
    expect(await store.readStream("server:math", { types: [] })).toEqual([]);
  });

  it("reads a range of positions across streams, by type, without counting the skipped events", async () => {
    const store = await open();
    for (let i = 0; i < 20; i++)
      store.append(i % 2 === 0 ? "a" : "b", [i % 4 === 0 ? toolEvent() : healthEvent()]);
    await store.flush();

    const range = await store.readAll({ fromPosition: 3, toPosition: 6 });
    expect(range.map((e) => e.position)).toEqual([3, 4, 5, 6]);
    const tools = await store.readAll({ types: ["ToolInvocationCompleted"], limit: 3 });
    expect(tools.map((e) => e.position)).toEqual([1, 5, 9]);
    const inRange = await store.readAll({
      types: ["ToolInvocationCompleted"],
      fromPosition: 6,
      toPosition: 17,
    });
    expect(inRange.map((e) => e.position)).toEqual([9, 13, 17]);
    expect(await store.readAll({ fromPosition: 7, toPosition: 6 })).toEqual([]);
    expect(await store.readAll({ toPosition: 0 })).toEqual([]);
    expect(await store.readAll({ types: [] })).toEqual([]);
    expect(await store.readAll({ fromPosition: 19, toPosition: Number.MAX_SAFE_INTEGER })).toHaveLength(2);
  });

  it("flush resolves at once when nothing is pending, and waits for every earlier append otherwise", async () => {
    const store = await open({ batchDelayMs: 60_000 });
    await store.flush();
    store.append("s", [toolEvent(), toolEvent()]);
    const first = store.flush();
    store.append("s", [toolEvent()]);
    const second = store.flush();
    await first;
    expect((await store.readAll()).length).toBeGreaterThanOrEqual(2);
    await second;
    expect(await store.readAll()).toHaveLength(3);
  });

  it("whenCommitted answers true at once when nothing is pending, else once the marked appends are readable", async () => {
    const store = await open({ batchDelayMs: 60_000, idleCommitAfterMs: Number.POSITIVE_INFINITY });
    expect(store.whenCommitted(store.appendMark())).toBe(true);
    store.append("s", [toolEvent(), toolEvent()]);
    const mark = store.appendMark();
    store.append("s", [toolEvent()]);
    // Not hurried by a flush, not held for the minute of batch delay either: a caller waits.
    const waiting = store.whenCommitted(mark);
    expect(waiting).toBeInstanceOf(Promise);
    expect(await waiting).toBe(true);
    expect((await store.readAll()).length).toBeGreaterThanOrEqual(2);
    expect(await store.whenCommitted(store.appendMark())).toBe(true);
    expect(await store.readAll()).toHaveLength(3);
    expect(store.commitFailure).toBeNull();
  });

  it("writes a partial batch after the short delay without any flush", async () => {
    const store = await open({ batchDelayMs: 5 });
    store.append("s", [toolEvent()]);
    await eventually(async () => (await store.readAll()).length === 1);
  });

  it("writes an event at the end of its turn when the last write is long past, else after the delay", async () => {
    const store = await open({ batchDelayMs: 60_000, idleCommitAfterMs: 10_000 });
    // Nothing written yet: the first event does not wait for the delay.
    store.append("s", [toolEvent()]);
    await eventually(async () => (await store.readAll()).length === 1);
    // A write 10 s ago or less: the next event waits for company (here, for the flush).
    store.append("s", [toolEvent()]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.readAll()).toHaveLength(1);
    await store.flush();
    expect(await store.readAll()).toHaveLength(2);
  });

  it("always waits for the delay with idleCommitAfterMs Infinity", async () => {
    const store = await open({ batchDelayMs: 60_000, idleCommitAfterMs: Number.POSITIVE_INFINITY });
    store.append("s", [toolEvent()]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.readAll()).toEqual([]);
    await store.flush();
    expect(await store.readAll()).toHaveLength(1);
  });

  it("writes a full batch at once, without waiting for the delay", async () => {
    const store = await open({ batchSize: 10, batchDelayMs: 60_000 });
    for (let i = 0; i < 10; i++) store.append("s", [toolEvent()]);
    await eventually(async () => (await store.readAll()).length === 10);
  });

  it("close writes everything accepted; a store opened again reads it", async () => {
    const first = await open({ batchDelayMs: 60_000 });
    const events = Array.from({ length: 25 }, () => toolEvent());
    for (const event of events) first.append("s", [event]);
    await first.close();

    const again = await open();
    const all = await again.readAll();
    expect(all.map((e) => e.event)).toEqual(events);
    expectGapFree(all);
    again.append("s", [toolEvent()]);
    await again.flush();
    expect((await again.readStream("s", { fromVersion: 26 })).map((e) => e.position)).toEqual([26]);
  });

  it("refuses appends after close, and close can be called twice", async () => {
    const store = await open();
    await store.close();
    expect(() => store.append("s", [toolEvent()])).toThrow(/closed/);
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.flush()).resolves.toBeUndefined();
  });

  it("refuses an event that could never be written, and queues nothing of that append", async () => {
    const store = await open();
    const bad = { ...toolEvent(), occurred_at: Number.NaN };
    expect(() => store.append("s", [toolEvent(), bad])).toThrow(TypeError);
    expect(() => store.append("", [toolEvent()])).toThrow(TypeError);
    store.append("s", []);
    store.append("s", [toolEvent()]);
    await store.flush();
    expect(await store.readAll()).toHaveLength(1);
  });

  it("stores an event_id only once, keeping the rest of the batch", async () => {
    const failures: BatchFailure[] = [];
    const store = await open({ onError: (_error, failure) => failures.push(failure) });
    const repeated = toolEvent();
    store.append("s", [repeated]);
    await store.flush();
    const fresh = toolEvent();
    store.append("s", [repeated, fresh]);
    await store.flush();

    const all = await store.readAll();
    expect(all.map((e) => e.event.event_id)).toEqual([repeated.event_id, fresh.event_id]);
    expectGapFree(all);
  });

  it("two stores on the same database, appending at once like two replicas, lose nothing and leave no gap", async () => {
    const a = await open({ batchSize: 25 });
    const b = await open({ batchSize: 25 });
    const burst = async (store: EventStore, producer: string) => {
      const ids: string[] = [];
      for (let i = 0; i < 400; i++) {
        const event = toolEvent(producer);
        // Shared streams (both replicas write them) and private ones.
        store.append(i % 3 === 0 ? `shared-${i % 4}` : `${producer}-${i % 5}`, [event]);
        ids.push(event.event_id);
        if (i % 10 === 0) await nextTurn();
      }
      await store.flush();
      return ids;
    };
    const [idsA, idsB] = await Promise.all([burst(a, "replica-a"), burst(b, "replica-b")]);

    const all = await readEverything(a);
    expect(all).toHaveLength(800);
    expectGapFree(all);
    expect(new Set(all.map((e) => e.event.event_id))).toEqual(new Set([...idsA, ...idsB]));
    // Each replica's own events keep its append order.
    expect(all.filter((e) => e.event.produced_by === "replica-a").map((e) => e.event.event_id)).toEqual(idsA);
    expect(all.filter((e) => e.event.produced_by === "replica-b").map((e) => e.event.event_id)).toEqual(idsB);
    expect(await readEverything(b)).toEqual(all);
  });

  it.skipIf(name === "memory")(
    "retries a failed batch with backoff, reporting each failure, and drops nothing",
    async () => {
      const failures: { error: unknown; failure: BatchFailure }[] = [];
      const store = await open({ onError: (error, failure) => failures.push({ error, failure }) });
      store.append("s", [toolEvent()]);
      await store.flush();

      await backend.breakTable!();
      const pending = [toolEvent(), toolEvent(), toolEvent()];
      store.append("s", pending.slice(0, 2));
      store.append("t", pending.slice(2));
      const flushed = store.flush();
      await eventually(async () => failures.length >= 2);
      await backend.repairTable();
      await flushed;

      expect(failures[0]!.failure).toMatchObject({ attempt: 1, events: 3, pending: 3, retryInMs: 50 });
      expect(failures[1]!.failure).toMatchObject({ attempt: 2, retryInMs: 100 });
      const all = await store.readAll();
      expect(all.map((e) => e.event.event_id).slice(1)).toEqual(pending.map((e) => e.event_id));
      expectGapFree(all);
    },
  );

  it.skipIf(name === "memory")(
    "whenCommitted gives up after commitWaitMs while the table is away, says so in commitFailure, and the events are stored once it is back",
    async () => {
      const store = await open({ commitWaitMs: 200 });
      store.append("s", [toolEvent()]);
      await store.flush();
      await backend.breakTable!();
      const pending = toolEvent();
      store.append("s", [pending]);
      await expect(store.whenCommitted(store.appendMark())).resolves.toBe(false);
      expect(store.commitFailure).toMatchObject({ retryInMs: expect.any(Number) });
      await backend.repairTable();
      await store.flush();
      expect(store.commitFailure).toBeNull();
      const all = await store.readAll();
      expect(all.map((e) => e.event.event_id)[1]).toBe(pending.event_id);
      expectGapFree(all);
    },
  );

  it.skipIf(name === "memory")(
    "close gives up after its timeout when the database keeps failing, and says how many events were lost",
    async () => {
      const store = await open({ closeTimeoutMs: 300 });
      await backend.breakTable!();
      store.append("s", [toolEvent(), toolEvent()]);
      const flushed = store.flush();
      await expect(store.close()).rejects.toThrow(/2 event\(s\) not written/);
      await expect(flushed).rejects.toThrow(/not written/);
      await backend.repairTable();
    },
  );
}

for (const name of BACKENDS) {
  const title = `EventStore contract: ${name}`;
  if (name === "postgres") await describePostgres(title, () => contract(name));
  else describe(title, () => contract(name));
}
