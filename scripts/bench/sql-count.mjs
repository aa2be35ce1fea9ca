// A preload (`node --import ./scripts/bench/sql-count.mjs ...`) that counts, by SQL text, the
// SQLite statements a process prepares and those it runs, and writes them as JSON to
// $BENCH_SQL_COUNT_FILE when it exits. The benchmark's profile mode loads it into the gateway to
// tell which queries run per call (a kept prepared statement runs without being prepared again).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.BENCH_SQL_COUNT_FILE;
if (file) {
  const require = createRequire(import.meta.url);
  const Database = require("better-sqlite3");
  const prepared = new Map();
  const executed = new Map();
  const bump = (counts, sql) => counts.set(sql, (counts.get(sql) ?? 0) + 1);
  /** Snapshots taken on `SIGUSR2`: the harness marks the start and the end of the workload. */
  const marks = [];
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function countedPrepare(sql, ...rest) {
    bump(prepared, sql);
    return prepare.call(this, sql, ...rest);
  };
  const probe = new Database(":memory:");
  const Statement = Object.getPrototypeOf(prepare.call(probe, "select 1"));
  probe.close();
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = Statement[method];
    Statement[method] = function countedRun(...args) {
      bump(executed, this.source);
      return original.apply(this, args);
    };
  }
  process.on("SIGUSR2", () => marks.push({ prepared: new Map(prepared), executed: new Map(executed) }));
  process.on("exit", () => {
    const from = marks[0] ?? { prepared: new Map(), executed: new Map() };
    const to = marks[1] ?? { prepared, executed };
    const during = (kind, sql) => (to[kind].get(sql) ?? 0) - (from[kind].get(sql) ?? 0);
    const rows = [...new Set([...prepared.keys(), ...executed.keys()])]
      .map((sql) => ({
        sql,
        executed_in_workload: during("executed", sql),
        prepared_in_workload: during("prepared", sql),
      }))
      .sort((a, b) => b.executed_in_workload - a.executed_in_workload);
    writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
  });
}
