#!/usr/bin/env node
// Appends per second of the built event stores (dist/) with group commit: memory, SQLite (a file
// in a temporary directory) and PostgreSQL (a fresh schema, dropped afterwards). See the
// "Event store appends" section of docs/benchmarks.md.
//
//   npm run build && node scripts/bench/event-appends.mjs [--events N] [--streams S] [--producers P]
//                                                        [--single N] [--backends memory,sqlite,postgres]
//
// PostgreSQL is reached at $DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test); it is
// skipped with a note when unreachable.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = join(ROOT, "dist", "adapters");
const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
/** Callers of the waiting scenarios: the sessions of the benchmark's concurrent workload. */
const WAITING_CALLERS = 16;
/** Events written and flushed before measuring: JIT, statement paths and the database's caches settle. */
const WARMUP_EVENTS = 2_000;

const USAGE = `usage: node scripts/bench/event-appends.mjs [options]
  --events N      events of the burst and producer scenarios (default 50000)
  --streams S     streams the burst spreads its events over (default 100)
  --producers P   concurrent producers of the second scenario, one stream each (default 50)
  --single N      events of the no-batching scenario, flush after each (default 1000)
  --waiting N     events of the two scenarios of 16 callers waiting for their commit (default 4000)
  --backends L    comma-separated: memory,sqlite,postgres (default all three)
  --json FILE     also write the rows as JSON to FILE (npm run bench reads them from there)`;

function options() {
  const { values } = parseArgs({
    options: {
      events: { type: "string", default: "50000" },
      streams: { type: "string", default: "100" },
      producers: { type: "string", default: "50" },
      single: { type: "string", default: "1000" },
      waiting: { type: "string", default: "4000" },
      backends: { type: "string", default: "memory,sqlite,postgres" },
      json: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
    return n;
  };
  return {
    events: int("events"),
    streams: int("streams"),
    producers: int("producers"),
    single: int("single"),
    waiting: int("waiting"),
    backends: values.backends.split(",").map((b) => b.trim()),
    json: values.json ?? null,
  };
}

let counter = 0;
/** The gateway's own id generator (dist/), so event ids are made as the gateway makes them. */
let ids;
function event() {
  counter += 1;
  return {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: `call-${counter}`,
    duration_ms: 1.234,
    result_size_bytes: 42,
    event_id: ids.timeOrderedUuid(),
    occurred_at: Date.now() / 1000,
    produced_by: "bench",
  };
}

/** N single-event appends in a tight loop over S streams, then one flush: the most batching can do. */
async function burst(store, events, streams) {
  const batch = Array.from({ length: events }, event);
  const start = performance.now();
  for (let i = 0; i < events; i++) store.append(`stream-${i % streams}`, [batch[i]]);
  const appended = performance.now();
  await store.flush();
  const end = performance.now();
  return { events, wallMs: end - start, appendUs: ((appended - start) * 1000) / events };
}

/**
 * P producers, each appending one event to its own stream and then yielding to the event loop, as
 * tool calls finishing one by one would: batches form by size or by the delay while writes go on.
 */
async function producers(store, events, count) {
  const per = Math.ceil(events / count);
  let appendMs = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, p) => {
      for (let i = 0; i < per; i++) {
        const e = event();
        const t = performance.now();
        store.append(`producer-${p}`, [e]);
        appendMs += performance.now() - t;
        await nextTurn();
      }
    }),
  );
  await store.flush();
  const end = performance.now();
  return { events: per * count, wallMs: end - start, appendUs: (appendMs * 1000) / (per * count) };
}

/**
 * Callers that each append one event and wait for its commit before going on, as tool calls
 * answered after their event is committed (`event_store.commit: before_answer`) do; each caller
 * first yields a turn, as a call waits for its upstream's answer. `wait` is how a caller waits:
 * `flush()` starts a write at once for whoever calls it; `whenCommitted` shares the end-of-turn
 * batch with every caller waiting meanwhile. Answers the wait's p50 and p99 too.
 */
async function waiters(store, events, count, wait) {
  const per = Math.ceil(events / count);
  const latencies = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, p) => {
      for (let i = 0; i < per; i++) {
        await nextTurn();
        const t = performance.now();
        store.append(`caller-${p}`, [event()]);
        const done = wait(store);
        if (done !== true) await done;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wallMs = performance.now() - start;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { events: per * count, wallMs, appendUs: null, waitMs: { p50: at(0.5), p99: at(0.99) } };
}

/** One append and one flush at a time: what a write per event would cost (one transaction each). */
async function single(store, events) {
  let appendMs = 0;
  const start = performance.now();
  for (let i = 0; i < events; i++) {
    const t = performance.now();
    store.append("single", [event()]);
    appendMs += performance.now() - t;
    await store.flush();
  }
  return { events, wallMs: performance.now() - start, appendUs: (appendMs * 1000) / events };
}

async function load(path) {
  const file = join(DIST, path);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  return import(pathToFileURL(file).href);
}

/** Opens a fresh store of the backend; `dispose` closes it and removes its file or schema. */
async function openBackend(name) {
  if (name === "memory") {
    const { MemoryEventStore } = await load("store/memory/memory-event-store.js");
    const store = new MemoryEventStore();
    return { store, note: "in process", dispose: () => store.close() };
  }
  if (name === "sqlite") {
    const { openSqliteEventStore } = await load("store/sqlite/sqlite-event-store.js");
    const dir = mkdtempSync(join(tmpdir(), "airlock-bench-events-"));
    const store = await openSqliteEventStore({ path: join(dir, "events.db"), onError: report });
    return {
      store,
      note: "WAL, synchronous=NORMAL, temp dir",
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (name === "postgres") {
    const { openPostgresEventStore } = await load("store/postgres/postgres-event-store.js");
    const pg = (await import("pg")).default;
    const schema = `bench_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
    await client.connect();
    const dropSchema = async () => {
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    };
    let store;
    try {
      store = await openPostgresEventStore({
        connection: { connectionString: DATABASE_URL },
        schema,
        onError: report,
      });
    } catch (error) {
      await dropSchema();
      throw error;
    }
    const { rows } = await client.query("select version() as v, current_setting('synchronous_commit') as s");
    return {
      store,
      note: `${rows[0].v.split(" ").slice(0, 2).join(" ")}, synchronous_commit=${rows[0].s}`,
      dispose: async () => {
        await store.close();
        await dropSchema();
      },
    };
  }
  throw new Error(`unknown backend '${name}'\n${USAGE}`);
}

function report(error, failure) {
  console.error(
    `batch failed (attempt ${failure.attempt}): ${error instanceof Error ? error.message : error}`,
  );
}

const pad = (value, width, left = false) =>
  left ? String(value).padEnd(width) : String(value).padStart(width);

async function main() {
  const opts = options();
  console.log(`Airlock event store appends, ${new Date().toISOString()}`);
  const cpu = cpus();
  console.log(
    `${cpu.length} x ${cpu[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, linux ${release()}, node ${process.version}`,
  );
  console.log(
    `load average before ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const { DEFAULT_BATCH_SIZE, DEFAULT_BATCH_DELAY_MS } = await load("store/batching-appender.js");
  ids = new (await load("system/node-ids.js")).NodeIdGenerator();
  console.log(
    `group commit: batch size ${DEFAULT_BATCH_SIZE}, delay ${DEFAULT_BATCH_DELAY_MS} ms (the defaults)\n`,
  );

  const rows = [];
  for (const name of opts.backends) {
    let backend;
    try {
      backend = await openBackend(name);
    } catch (error) {
      console.log(`${name}: skipped (${error instanceof Error ? error.message : error})\n`);
      continue;
    }
    console.log(`${name}: ${backend.note}`);
    try {
      for (let i = 0; i < WARMUP_EVENTS; i++) backend.store.append("warmup", [event()]);
      await backend.store.flush();
      const scenarios = [
        ["burst", `burst, ${opts.streams} streams`, () => burst(backend.store, opts.events, opts.streams)],
        [
          "producers",
          `${opts.producers} producers, yield each`,
          () => producers(backend.store, opts.events, opts.producers),
        ],
        ["single", "flush after every append", () => single(backend.store, opts.single)],
        [
          "waiting_flush",
          `${WAITING_CALLERS} callers, flush each`,
          () => waiters(backend.store, opts.waiting, WAITING_CALLERS, (store) => store.flush()),
        ],
        [
          "waiting_commit",
          `${WAITING_CALLERS} callers, whenCommitted`,
          () =>
            waiters(backend.store, opts.waiting, WAITING_CALLERS, (store) =>
              store.whenCommitted(store.appendMark()),
            ),
        ],
      ];
      for (const [key, scenario, run] of scenarios) {
        const r = await run();
        rows.push({ backend: name, key, scenario, ...r, perSecond: (r.events * 1000) / r.wallMs });
      }
    } finally {
      await backend.dispose();
    }
  }

  console.log(
    `\n${pad("backend", 9, true)}${pad("scenario", 28, true)}${pad("events", 8)}${pad("seconds", 10)}${pad("appends/s", 12)}${pad("append µs", 11)}${pad("wait p50/p99 ms", 17)}`,
  );
  for (const r of rows) {
    const wait = r.waitMs ? `${r.waitMs.p50.toFixed(2)}/${r.waitMs.p99.toFixed(2)}` : "";
    console.log(
      `${pad(r.backend, 9, true)}${pad(r.scenario, 28, true)}${pad(r.events, 8)}${pad((r.wallMs / 1000).toFixed(3), 10)}${pad(Math.round(r.perSecond), 12)}${pad(r.waitMs ? "-" : r.appendUs.toFixed(2), 11)}${pad(wait, 17)}`,
    );
  }
  if (opts.json !== null) {
    const skipped = opts.backends.filter((name) => !rows.some((r) => r.backend === name));
    writeFileSync(opts.json, `${JSON.stringify({ rows, skipped }, null, 2)}\n`);
  }
  console.log(
    `\nload average after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
