// `run.mjs --alternate P`: both MCP revisions through one front door, batch by batch. See
// docs/benchmarks.md ("Both revisions in one gateway").
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { CALLGRIND_NODE_ARGS, splitCosts } from "./callgrind.mjs";
import { connectModernSession } from "./clients.mjs";
import { runSequential } from "./load.mjs";
import { round3 } from "./stats.mjs";
import { TARGETS } from "./targets.mjs";

const REVISIONS = ["session", "stateless"];

/**
 * Both revisions in one gateway, alternating: the same front door, compiled code, timers and
 * machine load for both, so that a pair of batches compares them under the same conditions (on a
 * busy machine the work a gateway does per second rather than per call is charged to calls in
 * proportion to their wall time, which moves every other figure). Between batches the gateway is
 * signalled to record its CPU time and heap allocation (`gateway-marks.mjs`).
 *
 * With `instructions`, the gateway runs under callgrind and each batch's instructions are counted
 * alone (counters zeroed before it, dumped after it). After each pair, an idle window as long as
 * the pair's mean batch is counted too: what the gateway runs per second whatever its calls (timers,
 * the collector's concurrent marking), which callgrind's slowness charges to calls 20 to 50 times
 * over. Each batch's count is split (`callgrind.mjs`) into V8's memory management (which
 * follows the bytes allocated, also reported, and falls in whichever batch a collection happens
 * to), its compilers (which settle after the warm-up, or not), and the rest; the batch's `work` is
 * that rest less the idle window's rest per millisecond times the batch's wall time: the calls'
 * own instructions.
 */
export async function alternateRevisions(
  ctx,
  opts,
  { step, track, untrack, shouldStop, waitReady, requireWarm, fail },
) {
  const target = TARGETS.find((t) => t.id === "airlock_front_door_stateless");
  const marksFile = join(ctx.workDir, "marks.jsonl");
  const callgrind = opts.instructions ? startCallgrind(opts.resultsDir, fail) : undefined;
  const marked = {
    ...ctx,
    env: { ...ctx.env, BENCH_MARKS_FILE: marksFile },
    ...(callgrind && { timeoutMs: callgrind.startupTimeoutMs }),
  };
  const nodeArgs = [
    ...(callgrind ? CALLGRIND_NODE_ARGS : []),
    "--import",
    join(ctx.benchDir, "gateway-marks.mjs"),
  ];
  const handle = track(await target.start(marked, { nodeArgs, wrapper: callgrind?.wrapper ?? [] }));
  const clients = {
    session: track(await connectModernSession(handle.url, handle.headers)),
    stateless: track(await handle.connect()),
  };
  await waitReady(target, clients.stateless, callgrind?.readyTimeoutMs);
  step(`${opts.warmup} warm-up calls of each revision`);
  for (const client of Object.values(clients)) {
    requireWarm(target.label, await runSequential(() => client.call(target.kind), opts.warmup, shouldStop));
  }
  const readMarks = () =>
    existsSync(marksFile) ? readFileSync(marksFile, "utf8").trim().split("\n").filter(Boolean) : [];
  const mark = async () => {
    const before = readMarks().length;
    process.kill(handle.gateway.pid, "SIGUSR2");
    while (readMarks().length === before) await sleep(20);
    return JSON.parse(readMarks().at(-1));
  };
  const counter = callgrind?.counter(handle.gateway.pid);
  step(
    `${opts.alternate} pairs of batches of ${opts.perSession} calls${counter ? ", counted by callgrind" : ""}`,
  );
  const rows = [];
  for (let pair = 0; pair < opts.alternate; pair++) {
    const pairRows = [];
    for (const revision of pair % 2 === 0 ? REVISIONS : [...REVISIONS].reverse()) {
      const from = await mark();
      const load = loadavg()[0];
      counter?.zero();
      const began = performance.now();
      const run = await runSequential(() => clients[revision].call(target.kind), opts.perSession, shouldStop);
      const wallMs = performance.now() - began;
      const instructions = counter?.dump();
      const to = await mark();
      const calls = run.latenciesMs.length;
      if (run.errors > 0) fail(`${run.errors} ${revision} calls failed: ${run.firstError}`);
      pairRows.push({
        pair,
        revision,
        calls,
        cpu_us_per_call: Math.round((to.cpu_us - from.cpu_us) / calls),
        system_us_per_call: Math.round((to.system_us - from.system_us) / calls),
        bytes_per_call: Math.round((to.allocated - from.allocated) / calls),
        minor_gcs: to.minor - from.minor,
        major_gcs: to.major - from.major,
        wall_ms_per_call: round3(wallMs / calls),
        load_before: load,
        ...(instructions !== undefined && { instructions, wall_ms: wallMs }),
      });
    }
    if (counter) {
      const idleMs = pairRows.reduce((sum, row) => sum + row.wall_ms, 0) / pairRows.length;
      counter.zero();
      const began = performance.now();
      await sleep(idleMs);
      const idlePerMs = counter.dump().rest / (performance.now() - began);
      for (const row of pairRows) {
        const { total, gc, compiler, rest } = row.instructions;
        row.instructions_per_call = Math.round(total / row.calls);
        row.memory_per_call = Math.round(gc / row.calls);
        row.compiler_per_call = Math.round(compiler / row.calls);
        row.idle_instructions_per_ms = Math.round(idlePerMs);
        row.work_per_call = Math.round((rest - idlePerMs * row.wall_ms) / row.calls);
      }
    }
    rows.push(...pairRows);
  }
  await Promise.all(Object.values(clients).map(untrack));
  await untrack(handle);
  if (counter) chargeMemory(rows);
  report(rows, opts.resultsDir, counter !== undefined);
}

/** The valgrind wrapper, and a counter of the gateway's instructions between `zero` and `dump`. */
function startCallgrind(resultsDir, fail) {
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    fail("--instructions needs valgrind (Debian package valgrind)");
  }
  const dir = join(resultsDir, "alternate-callgrind");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outFile = join(dir, "callgrind.out");
  return {
    wrapper: ["valgrind", "--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${outFile}`],
    startupTimeoutMs: 300_000,
    readyTimeoutMs: 120_000,
    counter: (pid) => {
      const control = (...args) =>
        execFileSync("callgrind_control", [...args, String(pid)], { stdio: "ignore" });
      control("-i", "on");
      const seen = new Set(readdirSync(dir));
      return {
        zero: () => control("-z"),
        dump: () => {
          control("-d");
          const fresh = readdirSync(dir).filter((name) => !seen.has(name));
          if (fresh.length !== 1) fail(`expected one new callgrind dump in ${dir}, found ${fresh.length}`);
          seen.add(fresh[0]);
          const costs = splitCosts(readFileSync(join(dir, fresh[0]), "utf8"));
          if (costs.total === 0) fail(`callgrind counted nothing in ${fresh[0]}`);
          return costs;
        },
      };
    },
  };
}

/**
 * Each batch's `cost_per_call`: its work plus the memory management its allocation causes, at the
 * rate of the whole run (memory instructions over bytes allocated, all batches together). Where a
 * collection falls is a matter of timing, and one batch pays for the garbage of the batches before
 * it; its cost per byte allocated is the same for either revision.
 */
function chargeMemory(rows) {
  const bytes = rows.reduce((sum, row) => sum + row.bytes_per_call * row.calls, 0);
  const memory = rows.reduce((sum, row) => sum + row.instructions.gc, 0);
  const perByte = bytes > 0 ? memory / bytes : 0;
  for (const row of rows) {
    row.memory_instructions_per_byte = round3(perByte);
    row.cost_per_call = Math.round(row.work_per_call + perByte * row.bytes_per_call);
  }
}

function report(rows, resultsDir, counted) {
  const of = (revision, key) => rows.filter((row) => row.revision === revision).map((row) => row[key]);
  const paired = (key) => of("stateless", key).map((value, pair) => round3(value / of("session", key)[pair]));
  const keys = counted
    ? [
        "instructions_per_call",
        "work_per_call",
        "memory_per_call",
        "compiler_per_call",
        "bytes_per_call",
        "cost_per_call",
      ]
    : ["cpu_us_per_call", "system_us_per_call", "bytes_per_call"];
  const summary = {};
  for (const revision of REVISIONS) {
    summary[revision] = Object.fromEntries(keys.map((key) => [key, median(of(revision, key))]));
  }
  summary.ratios = Object.fromEntries(keys.map((key) => [key, paired(key)]));
  summary.ratio_medians = Object.fromEntries(keys.map((key) => [key, round3(median(summary.ratios[key]))]));
  mkdirSync(resultsDir, { recursive: true });
  const file = counted ? "alternate-instructions.json" : "alternate.json";
  writeFileSync(join(resultsDir, file), `${JSON.stringify({ rows, summary }, null, 2)}\n`);
  const columns = counted
    ? [
        ["instr/call", "instructions_per_call"],
        ["work/call", "work_per_call"],
        ["memory/call", "memory_per_call"],
        ["compiler/call", "compiler_per_call"],
        ["idle/ms", "idle_instructions_per_ms"],
        ["cost/call", "cost_per_call"],
      ]
    : [
        ["cpu µs/call", "cpu_us_per_call"],
        ["kernel µs", "system_us_per_call"],
      ];
  const cells = [...columns, ["bytes/call", "bytes_per_call"]];
  console.log(
    [
      "",
      `pair revision ${cells.map(([title]) => title.padStart(14)).join("")}  minor/major GCs  wall ms/call  load`,
      ...rows.map(
        (row) =>
          `${String(row.pair).padStart(4)} ${row.revision.padEnd(10)}${cells.map(([, key]) => String(row[key]).padStart(14)).join("")} ` +
          `${`${row.minor_gcs}/${row.major_gcs}`.padStart(16)} ${String(row.wall_ms_per_call).padStart(13)}  ${row.load_before.toFixed(1)}`,
      ),
      ...REVISIONS.map(
        (revision) =>
          `median ${revision}: ${keys.map((key) => `${key} ${summary[revision][key]}`).join(", ")}`,
      ),
      ...keys.map(
        (key) =>
          `stateless / session, pair by pair, ${key}: ${summary.ratios[key].join(" ")} (median ${summary.ratio_medians[key]})`,
      ),
    ].join("\n"),
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
