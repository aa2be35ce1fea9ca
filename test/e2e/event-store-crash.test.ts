import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import type * as OpenSqliteModule from "../../src/adapters/store/sqlite/open-sqlite.js";
import type * as SqliteEventStoreModule from "../../src/adapters/store/sqlite/sqlite-event-store.js";
import type { EventStore, StoredEvent } from "../../src/app/ports/event-store.js";
import { adminQuery, describePostgres, postgresSettings } from "../support/backends.js";
import { serveHttp, writeTempConfig } from "../support/cli.js";
import { ARITHMETIC } from "../support/gateway.js";
import { connectHttp, type ToolResult } from "../support/mcp-client.js";
import { descendants, isAlive } from "../support/processes.js";

// The child and the checks both use the built store, as a deployment would (`npm test` builds first).
const BUILT_STORE = resolve("dist/adapters/store/sqlite/sqlite-event-store.js");
const BUILT_OPENER = resolve("dist/adapters/store/sqlite/open-sqlite.js");
const BURST = resolve("test/fixtures/event-store/append-burst.mjs");

/** Each round kills the child once at least this many more events were acknowledged. */
const KILL_AFTER_ACKED = [1_500, 4_000, 800];

const dir = mkdtempSync(join(tmpdir(), "airlock-crash-"));
const file = join(dir, "events.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function builtModules() {
  if (!existsSync(BUILT_STORE) || !existsSync(BUILT_OPENER)) {
    throw new Error(`${BUILT_STORE} is missing: run \`npm run build\` before this test`);
  }
  const store = (await import(pathToFileURL(BUILT_STORE).href)) as typeof SqliteEventStoreModule;
  const opener = (await import(pathToFileURL(BUILT_OPENER).href)) as typeof OpenSqliteModule;
  return { ...store, ...opener };
}

/** Runs the burst from `start`; SIGKILLs it once `killAt` events are acknowledged; returns the last acknowledged count. */
async function burstUntilKilled(
  start: number,
  killAt: number,
): Promise<{ acked: number; signal: string | null }> {
  const child: ChildProcess = spawn(process.execPath, [BURST, file, String(start)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let acked = start;
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk) => {
    err += chunk;
  });
  const exited = new Promise<string | null>((resolveExit) =>
    child.once("exit", (_code, signal) => resolveExit(signal)),
  );
  child.stdout?.on("data", (chunk) => {
    out += chunk;
    const lines = out.split("\n");
    out = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^acked (\d+)$/.exec(line);
      if (match) acked = Math.max(acked, Number(match[1]));
    }
    if (acked >= killAt && child.exitCode === null && !child.killed) child.kill("SIGKILL");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const signal = await exited;
  clearTimeout(timer);
  if (signal !== "SIGKILL" || acked < killAt)
    throw new Error(`burst ended early (${signal}, acked ${acked}): ${err}`);
  // Lines read after the kill was sent still count: they were written before the process died.
  return { acked, signal };
}

async function readEverything(store: EventStore): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (;;) {
    const page = await store.readAll({ fromPosition: all.length + 1, limit: 5_000 });
    all.push(...page);
    if (page.length < 5_000) return all;
  }
}

describe("a SQLite event store killed with SIGKILL in the middle of a burst of appends", () => {
  it("reopens cleanly with gap-free positions and versions and every acknowledged event, round after round", async () => {
    const { SqliteEventStore, openSqlite } = await builtModules();
    let stored = 0;
    for (const more of KILL_AFTER_ACKED) {
      const { acked } = await burstUntilKilled(stored, stored + more);

      const sqlStore = await openSqlite<unknown>({ path: file });
      try {
        const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(sqlStore.db);
        expect(integrity.rows).toEqual([{ integrity_check: "ok" }]);

        const store = new SqliteEventStore(sqlStore);
        const all = await readEverything(store);
        // Everything acknowledged is there; what is there is exactly the first events appended, in order.
        expect(all.length).toBeGreaterThanOrEqual(acked);
        expect(all.map((e) => e.position)).toEqual(all.map((_, i) => i + 1));
        expect(all.map((e) => e.event.event_id)).toEqual(all.map((_, i) => `e-${i}`));
        const versions = new Map<string, number>();
        for (const e of all) {
          const expected = (versions.get(e.stream_id) ?? 0) + 1;
          expect(e.stream_version).toBe(expected);
          versions.set(e.stream_id, expected);
        }
        await store.close();
        stored = all.length;
      } finally {
        await sqlStore.close();
      }
    }
  }, 120_000);
});

/**
 * The gateway itself (`dist/cli.js serve`) under 16 MCP sessions of gateway_call load, killed with
 * SIGKILL in the middle of it: with `event_store.commit: before_answer` (the default) every call
 * a client saw succeed has its ToolInvocationCompleted event in the store reopened afterwards.
 */
const SESSIONS = 16;
/**
 * Load before the kill: a few seconds, hundreds of calls answered and committed even on a busy
 * two-core machine (about 50 calls/s there, 1,000 and more on a quiet one).
 */
const LOAD_MS = 3_000;
/** A call not answered within this long is given up (the kill ends every open one at once). */
const CALL_TIMEOUT_MS = 10_000;

/** The throttles raised out of the way: the load measures the call path, not the rate limit. */
const LOAD_YAML = `
rate_limit: {rps: 1000000, burst: 1000000}
execution: {max_concurrency: 1000, default_mcp_server_concurrency: 1000}
mcp_servers:
  math:
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ARITHMETIC)}]
`;

interface LoadOutcome {
  /** call_id of every call whose successful answer reached its client. */
  acknowledged: string[];
}

/** One session's calls, one after another, until `stopped()`. */
async function session(client: Client, stopped: () => boolean, outcome: LoadOutcome): Promise<void> {
  for (let i = 0; !stopped(); i++) {
    try {
      const result = (await client.callTool(
        {
          name: "gateway_call",
          arguments: { calls: [{ mcp_server: "math", tool: "add", arguments: { a: i, b: 1 } }] },
        },
        undefined,
        { timeout: CALL_TIMEOUT_MS },
      )) as ToolResult;
      const json = JSON.parse(result.content[0]?.text ?? "{}");
      if (json.success === true && json.results?.[0]?.success === true) {
        outcome.acknowledged.push(json.results[0].call_id);
      }
    } catch {
      // In flight at the kill: not acknowledged. The gateway is gone, nothing more to send.
      if (stopped()) return;
    }
  }
}

/** Serves `yaml`, loads it from 16 sessions, SIGKILLs it mid-load; answers what the clients saw. */
async function loadUntilKilled(yaml: string): Promise<LoadOutcome> {
  const gateway = await serveHttp(writeTempConfig(yaml));
  const clients: Client[] = [];
  let killed = false;
  try {
    for (let i = 0; i < SESSIONS; i++) clients.push(await connectHttp(gateway.baseUrl));
    const start = (await clients[0]!.callTool({
      name: "gateway_start",
      arguments: { mcp_server: "math" },
    })) as ToolResult;
    expect(start.content[0]?.text).toContain('"state":"ready"');
    const outcome: LoadOutcome = { acknowledged: [] };
    const running = clients.map((client) => session(client, () => killed, outcome));
    await new Promise((resolveLoad) => setTimeout(resolveLoad, LOAD_MS));
    // The upstream would outlive its gateway: its pids are taken before the kill, for the clean-up.
    const upstreams = descendants(gateway.child.pid!);
    gateway.child.kill("SIGKILL");
    killed = true;
    await Promise.all([gateway.exited, ...running]);
    for (const pid of upstreams) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    // Killed by the test, not ended by a failure of its own before.
    expect(gateway.child.signalCode).toBe("SIGKILL");
    return outcome;
  } finally {
    if (!killed) gateway.child.kill("SIGKILL");
    await Promise.allSettled(clients.map((client) => client.close()));
  }
}

/** Checks the acknowledged calls against the ToolInvocationCompleted events read back. */
function expectEveryAcknowledgedRecorded(outcome: LoadOutcome, recorded: readonly string[]): void {
  // Load reached the gateway (every session calls until the kill, so it died in the middle of it).
  expect(outcome.acknowledged.length).toBeGreaterThan(SESSIONS);
  const stored = new Set(recorded);
  expect(stored.size).toBe(recorded.length);
  const missing = outcome.acknowledged.filter((id) => !stored.has(id));
  expect(missing).toEqual([]);
}

describe("a gateway killed with SIGKILL under 16 sessions of gateway_call load (before_answer)", () => {
  it("on SQLite: every call a client saw succeed has its event in the file reopened", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-kill-"));
    try {
      const path = join(dir, "airlock.db");
      const outcome = await loadUntilKilled(
        `persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(path)}}}\n${LOAD_YAML}`,
      );
      const db = new Database(path);
      try {
        expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
        const rows = db
          .prepare("select payload from events where event_type = 'ToolInvocationCompleted'")
          .all() as { payload: string }[];
        expectEveryAcknowledgedRecorded(
          outcome,
          rows.map((row) => JSON.parse(row.payload).call_id),
        );
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

await describePostgres(
  "a gateway killed with SIGKILL under 16 sessions of gateway_call load on PostgreSQL (before_answer)",
  () => {
    it("every call a client saw succeed has its event in the schema read back", async () => {
      const schema = `t_${randomBytes(6).toString("hex")}`;
      await adminQuery(`create schema ${schema}`);
      try {
        // A schema of this test alone.
        const connection = postgresSettings({ schema });
        const outcome = await loadUntilKilled(
          `persistence: {backend: postgresql, postgresql: ${JSON.stringify(connection)}}\n${LOAD_YAML}`,
        );
        const { rows } = await adminQuery(
          `select payload from ${schema}.events where event_type = 'ToolInvocationCompleted'`,
        );
        expectEveryAcknowledgedRecorded(
          outcome,
          rows.map((row: { payload: string }) => JSON.parse(row.payload).call_id),
        );
      } finally {
        await adminQuery(`drop schema if exists ${schema} cascade`).catch(() => undefined);
      }
    }, 60_000);
  },
);
