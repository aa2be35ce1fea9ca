import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import type * as OpenSqliteModule from "../../src/adapters/store/sqlite/open-sqlite.js";
import type * as SqliteEventStoreModule from "../../src/adapters/store/sqlite/sqlite-event-store.js";
import type { EventStore, StoredEvent } from "../../src/app/ports/event-store.js";

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
