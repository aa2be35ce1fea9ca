#!/usr/bin/env node
import { execFileSync } from "node:child_process";
// The benchmark of the built gateway (dist/cli.js) against its peers and a ceiling, all in front of
// the same echo upstream, on one machine in one run. See docs/benchmarks.md.
//
//   npm run build && npm run bench [-- --quick --calls N --sessions S --per-session M ...]
//
// Every request goes to 127.0.0.1. Results: a table on stdout, JSON in scripts/bench/results/latest.json.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { alternateRevisions } from "./alternate.mjs";
import { CALLGRIND_NODE_ARGS, splitCosts } from "./callgrind.mjs";
import { CALLS } from "./clients.mjs";
import { measureCommitModes } from "./commit-modes.mjs";
import { selfCpuMs, withCpu } from "./cpu.mjs";
import { measureFleet } from "./fleet.mjs";
import { GatewayStartError } from "./gateway-process.mjs";
import { runScenario, runSequential } from "./load.mjs";
import { startProcess } from "./processes.mjs";
import { formatProfile, summarizeProfile } from "./profile-summary.mjs";
import { formatReport, ratios } from "./report.mjs";
import { measureGet } from "./rest.mjs";
import { round3 } from "./stats.mjs";
import { TARGETS } from "./targets.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BENCH_DIR = join(ROOT, "scripts", "bench");
const CLI = join(ROOT, "dist", "cli.js");
const ECHO_SERVER = join(BENCH_DIR, "echo-server.mjs");
const RESULTS_DIR = join(BENCH_DIR, "results");

/** Calls of each new session of the concurrent workload before it is measured. */
const SESSION_WARMUP_CALLS = 5;
/** Spawn to serving; a healthy start takes well under a second. */
const STARTUP_TIMEOUT_MS = 30_000;
/** The same under valgrind, which runs the gateway 20 to 50 times slower. */
const VALGRIND_STARTUP_TIMEOUT_MS = 300_000;
/** How long the front door may take to list the echo upstream's tools after start-up. */
const READY_TIMEOUT_MS = 15_000;
/** SIGTERM to exit before SIGKILL; the gateway drains requests and stops its children first. */
const STOP_GRACE_MS = 10_000;
const SECTIONS = ["mcp", "rest", "appends", "fleet", "commit"];
/** PostgreSQL of the event appends and of the commit modes (a fresh schema each, dropped after). */
const DATABASE_URL = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** A failure explained by its message (set-up, usage); any other error is printed with its stack. */
class BenchError extends Error {}

const USAGE = `usage: node scripts/bench/run.mjs [options]
  --calls N         calls of the sequential workload, one session (env BENCH_CALLS, default 2000)
  --warmup N        unmeasured calls of that session first (0: none), every target alike:
                    JIT and connection pools settle (env BENCH_WARMUP, default 3000)
  --sessions S      sessions of the concurrent workload (env BENCH_SESSIONS, default 16)
  --concurrent-warmup M
                    unmeasured calls per session, all sessions at once, before the concurrent
                    workload (0: none), every target alike: the optimizing compiler settles on
                    the concurrent paths too (env BENCH_CONCURRENT_WARMUP, default 200)
  --per-session M   calls per session in the concurrent workload (env BENCH_PER_SESSION, default 500)
  --servers K       servers of the large-fleet measurement (env BENCH_SERVERS, default 1000)
  --rest-seconds T  duration of each REST measurement (env BENCH_REST_SECONDS, default 5)
  --targets LIST    comma-separated target ids (env BENCH_TARGETS, default all):
                    ${TARGETS.map((t) => t.id).join(",")}
  --sections LIST   comma-separated: ${SECTIONS.join(",")} (env BENCH_SECTIONS, default all)
  --quick           a short run: 100 warm-up and 200 sequential calls, 10 concurrent warm-up
                    and 30 measured calls per session, 1 s of REST, 5,000 appends, 200 servers
                    (env BENCH_QUICK=1); explicit options win
  --profile         only the Airlock front door under the concurrent workload, with
                    node --cpu-prof; prints where its CPU time goes (env BENCH_PROFILE=1); with
                    --targets naming one front-door target, that one (the stateless one, say)
  --instructions    only the Airlock front door under the concurrent workload, run by valgrind's
                    callgrind: instructions per call, repeatable whatever else the machine does
                    (env BENCH_INSTRUCTIONS=1); --targets picks the target as for --profile
  --alternate P     only the front door with both revisions in one gateway: an SDK v2 client on a
                    2025-11-25 session and one on 2026-07-28, --warmup calls each, then P pairs of
                    batches of --per-session calls, alternating; the gateway's CPU and heap
                    allocation per call of each batch (env BENCH_ALTERNATE); with --instructions,
                    under callgrind: each batch's instructions, and an idle window's after each pair
  --commit-rounds R rounds of the commit section: each of its configurations (after_answer and
                    before_answer, on SQLite and PostgreSQL) runs once per round (env
                    BENCH_COMMIT_ROUNDS, default 2)
  --timeout SEC     abort the whole run after SEC seconds (env BENCH_TIMEOUT_S, default 600)`;

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        calls: { type: "string" },
        warmup: { type: "string" },
        sessions: { type: "string" },
        "concurrent-warmup": { type: "string" },
        "per-session": { type: "string" },
        servers: { type: "string" },
        "rest-seconds": { type: "string" },
        targets: { type: "string" },
        sections: { type: "string" },
        quick: { type: "boolean" },
        profile: { type: "boolean" },
        instructions: { type: "boolean" },
        alternate: { type: "string" },
        "commit-rounds": { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new BenchError(`${error.message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const flag = (value, env) => value === true || process.env[env] === "1";
  const quick = flag(values.quick, "BENCH_QUICK");
  const count = (name, given, env, full, short, least = 1) => {
    const raw = given ?? process.env[env] ?? String(quick ? short : full);
    const value = Number(raw);
    if (!Number.isInteger(value) || value < least) {
      const kind = least === 0 ? "a whole number" : "a positive integer";
      throw new BenchError(`${name} must be ${kind}, got ${JSON.stringify(raw)}\n${USAGE}`);
    }
    return value;
  };
  const positive = (name, given, env, full, short) => count(name, given, env, full, short);
  const list = (name, given, env, allowed) => {
    const raw = given ?? process.env[env];
    if (raw === undefined) return allowed;
    const items = raw
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    const unknown = items.filter((item) => !allowed.includes(item));
    if (items.length === 0 || unknown.length > 0) {
      throw new BenchError(
        `${name} must list some of ${allowed.join(",")}, got ${JSON.stringify(raw)}\n${USAGE}`,
      );
    }
    return items;
  };
  return {
    quick,
    profile: flag(values.profile, "BENCH_PROFILE"),
    instructions: flag(values.instructions, "BENCH_INSTRUCTIONS"),
    alternate:
      (values.alternate ?? process.env.BENCH_ALTERNATE) === undefined
        ? 0
        : positive("--alternate", values.alternate, "BENCH_ALTERNATE", 10, 10),
    calls: positive("--calls", values.calls, "BENCH_CALLS", 2000, 200),
    warmup: count("--warmup", values.warmup, "BENCH_WARMUP", 3000, 100, 0),
    sessions: positive("--sessions", values.sessions, "BENCH_SESSIONS", 16, 16),
    concurrentWarmup: count(
      "--concurrent-warmup",
      values["concurrent-warmup"],
      "BENCH_CONCURRENT_WARMUP",
      200,
      10,
      0,
    ),
    perSession: positive("--per-session", values["per-session"], "BENCH_PER_SESSION", 500, 30),
    servers: positive("--servers", values.servers, "BENCH_SERVERS", 1000, 200),
    restSeconds: positive("--rest-seconds", values["rest-seconds"], "BENCH_REST_SECONDS", 5, 1),
    appendEvents: quick ? 5000 : 50_000,
    appendSingle: quick ? 100 : 1000,
    appendWaiting: quick ? 400 : 4000,
    listCalls: quick ? 10 : 50,
    runningUpstreams: quick ? 3 : 10,
    targets: list(
      "--targets",
      values.targets,
      "BENCH_TARGETS",
      TARGETS.map((t) => t.id),
    ),
    sections: list("--sections", values.sections, "BENCH_SECTIONS", SECTIONS),
    commitRounds: positive("--commit-rounds", values["commit-rounds"], "BENCH_COMMIT_ROUNDS", 2, 2),
    timeoutS: positive("--timeout", values.timeout, "BENCH_TIMEOUT_S", 600, 600),
  };
}

/** Fails without a build; warns when a source file is newer than it. */
function checkBuild() {
  if (!existsSync(CLI)) {
    throw new BenchError(
      `${relative(process.cwd(), CLI) || CLI} not found: the benchmark runs the built gateway. ` +
        "Build it first: npm run build && npm run bench",
    );
  }
  if (newestMtime(join(ROOT, "src")) > builtAtMs()) {
    console.warn("warning: src/ has changes newer than dist/; run `npm run build` to measure them");
  }
}

/** When dist/ was last built: the build is incremental, so its newest file, not dist/cli.js. */
function builtAtMs() {
  return newestMtime(join(ROOT, "dist"));
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * What every Airlock configuration of the run shares, after its `mcp_servers`: API-key auth on,
 * SQLite for the stores and the event store (each configuration its own files, in `data/` as by
 * default: the gateway watches the configuration's directory, and a database written next to the
 * file would make the watcher rescan that directory at every commit), and the throttles
 * (command-bus rate limit, concurrency budgets) raised far above the load, so that the figures
 * measure the call path rather than the throttles. Everything else keeps its default.
 */
function baseConfigText(dir, name, mode, storage = sqliteStorage(dir, name)) {
  return [
    "tool_access:",
    `  mode: ${mode}`,
    "rate_limit:",
    "  rps: 1000000",
    "  burst: 1000000",
    "execution:",
    "  max_concurrency: 1000",
    "  default_mcp_server_concurrency: 1000",
    ...storage,
    "auth:",
    "  enabled: true",
    "logging:",
    "  level: INFO",
    "",
  ].join("\n");
}

/** The SQLite files of configuration `name`; `commit` sets `event_store.commit` (else its default). */
function sqliteStorage(dir, name, commit) {
  return [
    "persistence:",
    "  backend: sqlite",
    "  sqlite:",
    `    path: ${JSON.stringify(join(dir, "data", `${name}-store.db`))}`,
    "event_store:",
    "  driver: sqlite",
    `  path: ${JSON.stringify(join(dir, "data", `${name}-events.db`))}`,
    ...(commit ? [`  commit: ${commit}`] : []),
  ];
}

/** PostgreSQL with the driver's `connection` settings for every store, and `event_store.commit`. */
function postgresStorage(connection, commit) {
  return [
    "persistence:",
    "  backend: postgresql",
    `  postgresql: ${JSON.stringify(connection)}`,
    "event_store:",
    `  commit: ${commit}`,
  ];
}

/** The echo upstream with one tool policy: its `secret` tool is denied. */
function echoConfigText(dir, name, mode, storage) {
  return [
    "mcp_servers:",
    "  echo:",
    "    mode: subprocess",
    `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO_SERVER)}]`,
    "    tools:",
    "      deny_list: [secret]",
    baseConfigText(dir, name, mode, storage),
  ].join("\n");
}

/**
 * Writes the configurations and claims an admin API key with `airlock auth bootstrap-admin` in
 * the first one's store, copied to the others' so one key opens every gateway of the run.
 */
function prepareAirlock(workDir, env) {
  mkdirSync(join(workDir, "data"));
  const configs = {};
  for (const [name, mode] of [
    ["front_door", "front_door"],
    ["egress", "egress"],
  ]) {
    configs[name] = join(workDir, `${name}.yaml`);
    writeFileSync(configs[name], echoConfigText(workDir, name, mode));
  }
  const apiKey = bootstrapAdmin(configs.front_door, workDir, env);
  for (const name of ["egress", "fleet"]) {
    for (const suffix of ["", "-wal", "-shm"]) {
      const from = join(workDir, "data", `front_door-store.db${suffix}`);
      if (existsSync(from)) copyFileSync(from, join(workDir, "data", `${name}-store.db${suffix}`));
    }
  }
  return { configs, apiKey, fleetBase: baseConfigText(workDir, "fleet", "egress") };
}

/** Claims the admin API key `bench` in the store of `configPath` and answers it. */
function bootstrapAdmin(configPath, workDir, env) {
  const apiKey = execFileSync(
    process.execPath,
    [CLI, "auth", "bootstrap-admin", "--config", configPath, "--principal", "bench", "--show-key"],
    { cwd: workDir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  ).trim();
  if (!apiKey.startsWith("mcp_")) throw new BenchError("airlock auth bootstrap-admin printed no API key");
  return apiKey;
}

/** The caller's environment without MCP_* overrides, which the gateway would read. */
function gatewayEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("MCP_")));
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

function environment() {
  const git = (...args) => {
    try {
      return execFileSync("git", args, {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      return null;
    }
  };
  const commit = git("rev-parse", "--short", "HEAD");
  return {
    date: new Date().toISOString(),
    node: process.version,
    os: `${process.platform} ${release()}`,
    cpu_model: cpus()[0]?.model ?? "unknown",
    cpu_count: cpus().length,
    total_memory_gib: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    git_commit: commit,
    git_dirty: commit === null ? null : git("status", "--porcelain") !== "",
    // When dist/ was built: a rebuild during the run means it measured two builds.
    dist_built_at: new Date(builtAtMs()).toISOString(),
    versions: Object.fromEntries(
      ["@modelcontextprotocol/sdk", "supergateway", "mcp-proxy", "fastify", "autocannon"].map((name) => [
        name,
        packageVersion(name),
      ]),
    ),
    // Other work on the machine skews every figure: the 1, 5 and 15 minute load before the run.
    load_average_before: loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

/** Fails the run on a broken set-up instead of measuring errors. */
function requireWarm(label, warm) {
  if (warm.latenciesMs.length > 0 && warm.errors === warm.latenciesMs.length) {
    throw new BenchError(
      `every ${label} warm-up call failed${warm.firstError ? `: ${warm.firstError}` : ""}`,
    );
  }
}

/**
 * Checks that the Airlock target really runs with auth and its tool policy on: a request without
 * the key is refused, and the denied tool is neither listed (front door) nor callable.
 */
async function airlockChecks(target, handle, session) {
  const unauthenticated = await fetch(handle.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await unauthenticated.arrayBuffer();
  let secretRefused;
  if (target.kind === CALLS.egress) {
    const result = await session.callTool("gateway_call", {
      calls: [{ mcp_server: "echo", tool: "secret", arguments: {} }],
    });
    secretRefused = !CALLS.egress.ok(result) && !JSON.stringify(result).includes('"text":"secret"');
  } else {
    const listed = (await session.listTools()).tools.some((tool) => tool.name === "secret");
    const called = await session.callTool("secret", {}).then(
      (result) => result.isError !== true,
      () => false,
    );
    secretRefused = !listed && !called;
  }
  const checks = { status_without_key: unauthenticated.status, denied_tool_refused: secretRefused };
  if (unauthenticated.status !== 401 || !secretRefused) {
    throw new BenchError(`${target.label}: auth or policy is not in force: ${JSON.stringify(checks)}`);
  }
  return checks;
}

/** Waits until the echo upstream's tool is reachable through the target. */
async function waitReady(target, session, timeoutMs = READY_TIMEOUT_MS) {
  if (target.kind === CALLS.egress) {
    const began = performance.now();
    await session.callTool("gateway_start", { mcp_server: "echo" });
    return performance.now() - began;
  }
  const began = performance.now();
  for (;;) {
    const { tools } = await session.listTools();
    if (tools.some((tool) => tool.name === "echo")) return performance.now() - began;
    if (performance.now() - began > timeoutMs) {
      throw new BenchError(`${target.label} did not list the echo tool within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Prints each kind of process warning once. Over thousands of calls Node.js may warn of "abort
 * listeners added to [AbortSignal]": the SDK's HTTP transport passes one signal of its own to
 * every fetch, on top of the per-call one, and undici releases those listeners only later. It
 * concerns the client side; calls are unaffected (errors are counted).
 */
function warnOnce() {
  const seen = new Set();
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (seen.has(warning.name)) return;
    seen.add(warning.name);
    console.warn(`${warning.name}: ${warning.message} (printed once)`);
  });
}

async function main() {
  warnOnce();
  const opts = options();
  checkBuild();
  const env = environment();
  const workDir = mkdtempSync(join(tmpdir(), "airlock-bench-"));
  const gwEnv = gatewayEnv();

  // Everything started is tracked here so that any failure, the time bound or a signal stops it.
  const open = new Set();
  let stopping = false;
  const shouldStop = () => stopping;
  const cleanup = async () => {
    stopping = true;
    await Promise.allSettled(
      [...open].map((thing) => (thing.close ? thing.close() : thing.stop(STOP_GRACE_MS))),
    );
    rmSync(workDir, { recursive: true, force: true });
  };
  const abort = (message, code) => {
    console.error(message);
    cleanup().finally(() => process.exit(code));
  };
  const watchdog = setTimeout(
    () => abort(`aborted: the run exceeded ${opts.timeoutS} s (--timeout)`, 1),
    opts.timeoutS * 1000,
  );
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => abort(`aborted by ${signal}`, 130));
  /** Announces a phase, or ends the run quietly once it was aborted. */
  const step = (message) => {
    if (stopping) throw new BenchError("aborted");
    console.log(message);
  };
  const track = (thing) => {
    open.add(thing);
    return thing;
  };
  const untrack = async (thing) => {
    open.delete(thing);
    await (thing.close ? thing.close() : thing.stop(STOP_GRACE_MS));
  };

  try {
    step(`preparing ${workDir}: configurations, admin API key (airlock auth bootstrap-admin)`);
    const airlock = prepareAirlock(workDir, gwEnv);
    const ctx = {
      root: ROOT,
      benchDir: BENCH_DIR,
      cliPath: CLI,
      echoServer: ECHO_SERVER,
      workDir,
      env: gwEnv,
      timeoutMs: STARTUP_TIMEOUT_MS,
      apiKey: airlock.apiKey,
      configs: airlock.configs,
      open,
    };
    if (opts.profile) {
      await profileFrontDoor(ctx, opts, { step, track, untrack, shouldStop });
      return;
    }
    if (opts.alternate > 0) {
      const fail = (message) => {
        throw new BenchError(message);
      };
      await alternateRevisions(
        ctx,
        { ...opts, resultsDir: RESULTS_DIR },
        { step, track, untrack, shouldStop, waitReady, requireWarm, fail },
      );
      return;
    }
    if (opts.instructions) {
      await countFrontDoorInstructions(ctx, opts, { step, track, untrack, shouldStop });
      return;
    }

    const results = {
      environment: env,
      parameters: {
        warmup_calls: opts.warmup,
        session_warmup_calls: SESSION_WARMUP_CALLS,
        concurrent_warmup_calls: opts.concurrentWarmup,
        calls: opts.calls,
        sessions: opts.sessions,
        per_session: opts.perSession,
        servers: opts.servers,
        rest_seconds: opts.restSeconds,
        commit_rounds: opts.commitRounds,
        quick: opts.quick,
      },
      targets: {},
      rest: {},
      appends: null,
      fleet: null,
      commit: null,
    };

    const targets = opts.sections.includes("mcp") ? TARGETS.filter((t) => opts.targets.includes(t.id)) : [];
    const helpers = { step, track, untrack, shouldStop };
    for (const target of targets) {
      step(`${target.label}: starting`);
      const handle = track(await target.start(ctx));
      const { readyMs, checks, sequential, concurrent, rssMib } = await measureWorkloads(
        target,
        target.label,
        handle,
        opts,
        helpers,
      );
      if (target.id === "airlock_front_door" && opts.sections.includes("rest")) {
        step(`${target.label}: REST GET /api/system/ for ${opts.restSeconds} s (autocannon)`);
        results.rest.airlock = await measureGet(
          new URL("/api/system/", handle.address).href,
          { "x-api-key": ctx.apiKey },
          opts.restSeconds,
        );
      }
      await untrack(handle);
      results.targets[target.id] = {
        label: target.label,
        peer: target.peer === true,
        airlock: target.airlock === true,
        ready_ms: round3(readyMs),
        checks,
        rss_mib_after: rssMib,
        sequential,
        concurrent,
      };
    }

    if (opts.sections.includes("rest")) {
      step(`bare fastify: REST GET /api/system/ for ${opts.restSeconds} s (autocannon)`);
      const bare = track(
        await startProcess({
          name: "bare fastify",
          command: process.execPath,
          args: [join(BENCH_DIR, "fastify-bare.mjs")],
          cwd: workDir,
          timeoutMs: STARTUP_TIMEOUT_MS,
        }),
      );
      results.rest.bare_fastify = await measureGet(`${bare.url}/api/system/`, {}, opts.restSeconds);
      await untrack(bare);
    }

    if (opts.sections.includes("appends")) {
      step(`event appends: SQLite and PostgreSQL, ${opts.appendEvents} events (event-appends.mjs)`);
      results.appends = runAppends(workDir, opts);
    }

    if (opts.sections.includes("fleet")) {
      step(
        `${opts.servers} configured servers: start-up, memory, gateway_list; ${opts.runningUpstreams} running`,
      );
      results.fleet = await measureFleet(ctx, {
        servers: opts.servers,
        running: opts.runningUpstreams,
        listCalls: opts.listCalls,
        baseConfig: airlock.fleetBase,
        shouldStop,
      });
    }
    if (opts.sections.includes("commit")) {
      const egress = TARGETS.find((t) => t.id === "airlock_egress");
      results.commit = await measureCommitModes({
        rounds: opts.commitRounds,
        databaseUrl: DATABASE_URL,
        step,
        measure: async (name, backend, commit, connection) => {
          const storage =
            backend === "sqlite" ? sqliteStorage(workDir, name, commit) : postgresStorage(connection, commit);
          const configPath = join(workDir, `${name}.yaml`);
          writeFileSync(configPath, echoConfigText(workDir, name, "egress", storage));
          const apiKey = bootstrapAdmin(configPath, workDir, gwEnv);
          const handle = track(await egress.start({ ...ctx, apiKey, configs: { egress: configPath } }));
          try {
            return await measureWorkloads(egress, `${commit} on ${backend}`, handle, opts, helpers);
          } finally {
            await untrack(handle);
          }
        },
      });
    }
    if (stopping) return;

    results.environment.load_average_after = loadavg().map((load) => Math.round(load * 100) / 100);
    results.environment.dist_rebuilt_during_run =
      new Date(builtAtMs()).toISOString() !== results.environment.dist_built_at;
    results.ratios = ratios(results.targets);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, "latest.json");
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    console.log(["", ...formatReport(results), `results: ${relative(ROOT, file)}`].join("\n"));

    const errors = [...Object.values(results.targets), ...(results.commit?.runs ?? [])].reduce(
      (total, t) => total + t.sequential.errors + t.concurrent.errors,
      0,
    );
    if (errors > 0) {
      console.error(`${errors} calls failed`);
      process.exitCode = 1;
    }
  } catch (error) {
    // After an abort, failures of the interrupted calls are expected; the abort reported itself.
    if (!stopping) throw error;
  } finally {
    clearTimeout(watchdog);
    if (!stopping) await cleanup();
  }
}

/**
 * The two workloads on a started target: one session waits until the upstream is reachable (and
 * checks auth and policy on Airlock), warms up and makes the sequential calls; then the sessions
 * of the concurrent workload open, warm up and call at once. Closes the sessions, not the target.
 */
async function measureWorkloads(target, label, handle, opts, { step, track, untrack, shouldStop }) {
  const first = track(await handle.connect());
  const readyMs = await waitReady(target, first);
  const checks = target.airlock ? await airlockChecks(target, handle, first) : null;
  step(`${label}: warm-up ${opts.warmup}, then 1 session x ${opts.calls} calls`);
  requireWarm(label, await runSequential(() => first.call(target.kind), opts.warmup, shouldStop));
  const probes = { server: handle.serverCpuMs, server_alone: handle.serverAloneCpuMs, client: selfCpuMs };
  const sequential = await withCpu(probes, () =>
    runScenario([() => first.call(target.kind)], opts.calls, shouldStop),
  );
  step(`${label}: ${opts.sessions} sessions x ${opts.perSession} calls`);
  const sessions = [];
  for (let i = 0; i < opts.sessions; i++) {
    const session = track(await handle.connect());
    await runSequential(() => session.call(target.kind), SESSION_WARMUP_CALLS, shouldStop);
    sessions.push(session);
  }
  await warmConcurrently(target, sessions, opts, shouldStop);
  const concurrent = await withCpu(probes, () =>
    runScenario(
      sessions.map((session) => () => session.call(target.kind)),
      opts.perSession,
      shouldStop,
    ),
  );
  const rssMib = handle.serverRssMib();
  await Promise.all([...sessions, first].map(untrack));
  return { readyMs, checks, sequential, concurrent, rssMib };
}

/** Runs event-appends.mjs on SQLite and PostgreSQL and reads its rows back. */
function runAppends(workDir, opts) {
  const file = join(workDir, "appends.json");
  execFileSync(
    process.execPath,
    [
      join(BENCH_DIR, "event-appends.mjs"),
      "--backends",
      "sqlite,postgres",
      "--events",
      String(opts.appendEvents),
      "--single",
      String(opts.appendSingle),
      "--waiting",
      String(opts.appendWaiting),
      "--json",
      file,
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  const { rows, skipped } = JSON.parse(readFileSync(file, "utf8"));
  return {
    events: opts.appendEvents,
    skipped,
    rows: rows.map((r) => ({
      backend: r.backend,
      scenario: r.key,
      label: r.scenario,
      events: r.events,
      appends_per_s: Math.round(r.perSecond),
      append_us: round3(r.appendUs),
      ...(r.waitMs && { wait_ms: { p50: round3(r.waitMs.p50), p99: round3(r.waitMs.p99) } }),
    })),
  };
}

/**
 * The front-door target `--profile` and `--instructions` measure: the one named by `--targets` when
 * it names one front-door target alone (`airlock_front_door_stateless`, say), else the 2025 front door.
 */
function frontDoorTarget(opts) {
  const named = opts.targets.length === 1 && opts.targets[0].startsWith("airlock_front_door");
  return TARGETS.find((t) => t.id === (named ? opts.targets[0] : "airlock_front_door"));
}

/**
 * The front door under the concurrent workload with `node --cpu-prof`; the profile (written when
 * the gateway exits) is summarized by self time over the workload's samples only.
 */
async function profileFrontDoor(ctx, opts, { step, track, untrack, shouldStop }) {
  const target = frontDoorTarget(opts);
  const dir = join(RESULTS_DIR, "profile");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  step(`${target.label} with --cpu-prof (profiles in ${relative(ROOT, dir)})`);
  // sql-count.mjs counts the SQLite statements the gateway prepares and runs; SIGUSR2 marks the workload.
  const sqlFile = join(dir, "sql-count.json");
  const profiled = { ...ctx, env: { ...ctx.env, BENCH_SQL_COUNT_FILE: sqlFile } };
  const nodeArgs = ["--cpu-prof", "--cpu-prof-dir", dir, "--import", join(BENCH_DIR, "sql-count.mjs")];
  const handle = track(await target.start(profiled, { nodeArgs }));
  const sessions = await openWarmSessions(target, handle, opts, { track, shouldStop });
  step(`${opts.sessions} sessions x ${opts.perSession} calls`);
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  process.kill(handle.gateway.pid, "SIGUSR2");
  const span = { fromUs: nowUs() };
  const probes = { server: handle.serverCpuMs, server_alone: handle.serverAloneCpuMs, client: selfCpuMs };
  const concurrent = await withCpu(probes, () =>
    runScenario(
      sessions.map((session) => () => session.call(target.kind)),
      opts.perSession,
      shouldStop,
    ),
  );
  span.toUs = nowUs();
  process.kill(handle.gateway.pid, "SIGUSR2");
  await Promise.all(sessions.map(untrack));
  await untrack(handle);
  const files = readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"));
  if (files.length === 0) throw new BenchError("the gateway wrote no CPU profile (did it exit normally?)");
  // Only the samples of the workload: start-up, warm-up and shutdown are left out.
  const summary = summarizeProfile(JSON.parse(readFileSync(join(dir, files[0]), "utf8")), span);
  const statements = existsSync(sqlFile) ? JSON.parse(readFileSync(sqlFile, "utf8")) : [];
  const perCall = (count) => Math.round((count / concurrent.calls) * 100) / 100;
  const sql = statements
    .filter((row) => row.executed_in_workload > 0 || row.prepared_in_workload > 0)
    .map((row) => ({
      per_call: perCall(row.executed_in_workload),
      prepared_per_call: perCall(row.prepared_in_workload),
      sql: row.sql.replace(/\s+/g, " ").slice(0, 140),
    }));
  const sum = (key) => sql.reduce((total, row) => total + row[key], 0).toFixed(2);
  writeFileSync(
    join(dir, "summary.json"),
    `${JSON.stringify({ concurrent, span, sql, summary }, null, 2)}\n`,
  );
  console.log(
    [
      "",
      `${concurrent.calls} calls, ${concurrent.errors} errors, ${concurrent.calls_per_s} calls/s, ` +
        `p50 ${concurrent.latency_ms.p50} ms, p99 ${concurrent.latency_ms.p99} ms, ` +
        `gateway CPU ${concurrent.cpu_ms_per_call.server_alone} ms/call, with its upstream ` +
        `${concurrent.cpu_ms_per_call.server} (profiled: slower than unprofiled)`,
      ...formatProfile(summary, 25),
      `SQLite statements run per call (${sum("per_call")} in all; prepared anew: ${sum("prepared_per_call")}):`,
      ...sql.slice(0, 12).map((row) => `  ${row.per_call.toFixed(2).padStart(6)}  ${row.sql}`),
      `profile: ${relative(ROOT, join(dir, files[0]))}`,
    ].join("\n"),
  );
}

/** Opens the sessions of the concurrent workload and warms them up as the full run does. */
async function openWarmSessions(target, handle, opts, { track, shouldStop }) {
  const sessions = [];
  for (let i = 0; i < opts.sessions; i++) sessions.push(track(await handle.connect()));
  await waitReady(target, sessions[0]);
  requireWarm(
    target.label,
    await runSequential(() => sessions[0].call(target.kind), opts.warmup, shouldStop),
  );
  for (const session of sessions) {
    requireWarm(
      target.label,
      await runSequential(() => session.call(target.kind), SESSION_WARMUP_CALLS, shouldStop),
    );
  }
  await warmConcurrently(target, sessions, opts, shouldStop);
  return sessions;
}

/**
 * Unmeasured calls of every session at once before the concurrent workload: a sequential warm-up
 * leaves the paths only concurrency takes (batched writes, group commits of several calls) to be
 * optimized during the measurement, where the compiler's work would count as the target's.
 */
async function warmConcurrently(target, sessions, opts, shouldStop) {
  if (opts.concurrentWarmup === 0) return;
  const warm = await runScenario(
    sessions.map((session) => () => session.call(target.kind)),
    opts.concurrentWarmup,
    shouldStop,
  );
  if (warm.calls > 0 && warm.errors === warm.calls) {
    throw new BenchError(`every ${target.label} concurrent warm-up call failed: ${warm.first_error}`);
  }
}

/**
 * The front door under the concurrent workload inside `valgrind --tool=callgrind`, counting only
 * during the workload (`callgrind_control -i on/off`): the instructions the gateway process runs per
 * call, every thread of it (not its upstream), split into V8's memory management, its compilers
 * and the rest (`callgrind.mjs`, which also names the Node options that keep callgrind's slowness
 * from changing what V8 decides). Unlike CPU time, the count hardly moves with the machine's other
 * load. Under valgrind the gateway runs 20 to 50 times slower; the workload's rates mean nothing here.
 */
async function countFrontDoorInstructions(ctx, opts, { step, track, untrack, shouldStop }) {
  const target = frontDoorTarget(opts);
  const dir = join(RESULTS_DIR, "instructions");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outFile = join(dir, "callgrind.out");
  const control = (...args) => execFileSync("callgrind_control", args, { stdio: "ignore" });
  try {
    execFileSync("valgrind", ["--version"], { stdio: "ignore" });
  } catch {
    throw new BenchError("--instructions needs valgrind (Debian package valgrind)");
  }
  step(`${target.label} under callgrind (output in ${relative(ROOT, dir)})`);
  const wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${outFile}`];
  const slow = { ...ctx, timeoutMs: VALGRIND_STARTUP_TIMEOUT_MS };
  const handle = track(await target.start(slow, { wrapper, nodeArgs: CALLGRIND_NODE_ARGS }));
  const sessions = await openWarmSessions(target, handle, opts, { track, shouldStop });
  step(`${opts.sessions} sessions x ${opts.perSession} calls, counted`);
  control("-i", "on", String(handle.gateway.pid));
  const concurrent = await runScenario(
    sessions.map((session) => () => session.call(target.kind)),
    opts.perSession,
    shouldStop,
  );
  control("-i", "off", String(handle.gateway.pid));
  await Promise.all(sessions.map(untrack));
  await untrack(handle);
  const costs = splitCosts(readFileSync(outFile, "utf8"));
  if (costs.total === 0) throw new BenchError(`callgrind counted nothing in ${relative(ROOT, outFile)}`);
  const perCall = (count) => Math.round(count / concurrent.calls);
  const summary = {
    calls: concurrent.calls,
    errors: concurrent.errors,
    instructions: costs.total,
    per_call: perCall(costs.total),
    memory_per_call: perCall(costs.gc),
    compiler_per_call: perCall(costs.compiler),
    rest_per_call: perCall(costs.rest),
  };
  writeFileSync(join(dir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(
    `\n${concurrent.calls} calls, ${concurrent.errors} errors: ${summary.per_call.toLocaleString("en")} instructions per call in the gateway process` +
      ` (memory management ${summary.memory_per_call.toLocaleString("en")}, compilers ${summary.compiler_per_call.toLocaleString("en")}, the rest ${summary.rest_per_call.toLocaleString("en")})`,
  );
}

main().catch((error) => {
  console.error(
    error instanceof BenchError || error instanceof GatewayStartError
      ? error.message
      : `benchmark failed: ${error?.stack ?? error}`,
  );
  process.exitCode = 1;
});
