// A preload (`node --import ./scripts/bench/sql-count.mjs ...`) that counts the SQLite statements
// a process prepares, by SQL text, and writes them as JSON to $BENCH_SQL_COUNT_FILE when it exits.
// The benchmark's profile mode loads it into the gateway to tell which queries run per call.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.BENCH_SQL_COUNT_FILE;
if (file) {
  const require = createRequire(import.meta.url);
  const Database = require("better-sqlite3");
  const counts = new Map();
  /** Snapshots taken on `SIGUSR2`: the harness marks the start and the end of the workload. */
  const marks = [];
  const original = Database.prototype.prepare;
  Database.prototype.prepare = function prepare(sql, ...rest) {
    counts.set(sql, (counts.get(sql) ?? 0) + 1);
    return original.call(this, sql, ...rest);
  };
  process.on("SIGUSR2", () => marks.push(new Map(counts)));
  process.on("exit", () => {
    const from = marks[0] ?? new Map();
    const to = marks[1] ?? counts;
    const rows = [...counts]
      .map(([sql, total]) => ({ sql, total, in_workload: (to.get(sql) ?? 0) - (from.get(sql) ?? 0) }))
      .sort((a, b) => b.in_workload - a.in_workload);
    writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
  });
}
