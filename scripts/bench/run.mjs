#!/usr/bin/env node
// Throughput and latency of the built gateway (dist/cli.js) in front of the arithmetic example
// server, against the same server called directly over stdio. See docs/benchmarks.md.
//
//   npm run build && npm run bench [-- --calls N --sessions S --per-session M --timeout SECONDS]
//
// Every request goes to 127.0.0.1. Results: a table on stdout, JSON in scripts/bench/results/latest.json.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { connectDirect, connectGateway } from "./clients.mjs";
import { childPids, processCpuMs, selfCpuMs, withCpu } from "./cpu.mjs";
import { GatewayStartError, startGateway } from "./gateway-process.mjs";
import { runScenario, runSequential } from "./load.mjs";
import { formatReport } from "./report.mjs";
import { round3 } from "./stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = join(ROOT, "dist", "cli.js");
const UPSTREAM = join(ROOT, "examples", "servers", "arithmetic.mjs");
const RESULTS_FILE = join(ROOT, "scripts", "bench", "results", "latest.json");

/** Calls before measuring: JIT, connection pools and the upstream's first requests settle. */
const WARMUP_CALLS = 100;
/** Spawn to "listening"; a healthy start takes well under a second. */
const STARTUP_TIMEOUT_MS = 30_000;
/** SIGTERM to exit before SIGKILL; the gateway drains requests and stops its children first. */
const STOP_GRACE_MS = 10_000;

/** A failure explained by its message (set-up, usage); any other error is printed with its stack. */
class BenchError extends Error {}

const USAGE = `usage: node scripts/bench/run.mjs [options]
  --calls N         calls of scenario A, one session (env BENCH_CALLS, default 2000)
  --sessions S      sessions of scenario B (env BENCH_SESSIONS, default 16)
  --per-session M   calls per session in scenario B (env BENCH_PER_SESSION, default 500)
  --timeout SEC     abort the whole run after SEC seconds (env BENCH_TIMEOUT_S, default 300)`;

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        calls: { type: "string" },
        sessions: { type: "string" },
        "per-session": { type: "string" },
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
  const positive = (name, flag, env, fallback) => {
    const raw = flag ?? process.env[env] ?? String(fallback);
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      throw new BenchError(`${name} must be a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
    }
    return value;
  };
  return {
    calls: positive("--calls", values.calls, "BENCH_CALLS", 2000),
    sessions: positive("--sessions", values.sessions, "BENCH_SESSIONS", 16),
    perSession: positive("--per-session", values["per-session"], "BENCH_PER_SESSION", 500),
    timeoutS: positive("--timeout", values.timeout, "BENCH_TIMEOUT_S", 300),
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
  const built = statSync(CLI).mtimeMs;
  const newest = newestMtime(join(ROOT, "src"));
  if (newest > built) {
    console.warn("warning: src/ has changes newer than dist/cli.js; run `npm run build` to measure them");
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    newest = Math.max(newest, mtime);
  }
  return newest;
}

/**
 * The benchmark's configuration: math only. The command-bus rate limit (10 calls/s by default)
 * and the concurrency budgets (10 per server) are raised far above the load, so the figures
 * measure the call path rather than the throttles; everything else keeps its default.
 */
function configText(dir) {
  return [
    "mcp_servers:",
    "  math:",
    "    mode: subprocess",
    `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(UPSTREAM)}]`,
    "tool_access:",
    "  mode: egress",
    "rate_limit:",
    "  rps: 1000000",
    "  burst: 1000000",
    "execution:",
    "  max_concurrency: 1000",
    "  default_mcp_server_concurrency: 1000",
    "event_store:",
    `  path: ${JSON.stringify(join(dir, "events.db"))}`,
    "logging:",
    "  level: INFO",
    "",
  ].join("\n");
}

/** The caller's environment without MCP_* overrides, which the gateway would read. */
function gatewayEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("MCP_")));
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
    // Other work on the machine skews every figure: the 1, 5 and 15 minute load before the run.
    load_average_before: loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

function ratio(gateway, direct) {
  return gateway === null || direct === null || direct === 0
    ? null
    : Math.round((gateway / direct) * 1000) / 1000;
}

/** Fails the run on a broken set-up instead of measuring errors. */
function requireWarm(label, warm) {
  if (warm.errors === warm.latenciesMs.length) {
    throw new BenchError(
      `every ${label} warm-up call failed${warm.firstError ? `: ${warm.firstError}` : ""}`,
    );
  }
}

async function main() {
  const opts = options();
  checkBuild();
  const env = environment();
  const workDir = mkdtempSync(join(tmpdir(), "airlock-bench-"));
  const configPath = join(workDir, "config.yaml");
  writeFileSync(configPath, configText(workDir));

  // Everything started is tracked here so that any failure, the time bound or a signal stops it.
  const open = { gateway: null, clients: new Set() };
  let stopping = false;
  const shouldStop = () => stopping;
  const cleanup = async () => {
    stopping = true;
    await Promise.allSettled([...open.clients].map((client) => client.close()));
    const facts = open.gateway ? await open.gateway.stop(STOP_GRACE_MS) : null;
    rmSync(workDir, { recursive: true, force: true });
    return facts;
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
  const track = (client) => {
    open.clients.add(client);
    return client;
  };
  const untrack = async (client) => {
    open.clients.delete(client);
    await client.close();
  };

  try {
    console.log(`starting ${relative(ROOT, CLI)} (config in ${workDir})`);
    const gateway = await startGateway({
      cliPath: CLI,
      configPath,
      cwd: workDir,
      env: gatewayEnv(),
      timeoutMs: STARTUP_TIMEOUT_MS,
    });
    open.gateway = gateway;
    const url = new URL(gateway.address);
    if (url.hostname !== "127.0.0.1") {
      throw new BenchError(`the gateway listens on ${gateway.address}, not 127.0.0.1`);
    }
    const memoryIdle = gateway.memory();
    console.log(`listening on ${gateway.address} after ${gateway.startupMs.toFixed(1)} ms`);

    const first = track(await connectGateway(gateway.address));
    const startBegan = performance.now();
    const started = await first.tool("gateway_start", { mcp_server: "math" });
    const upstreamStartMs = performance.now() - startBegan;
    if (started.isError || started.payload?.error) {
      throw new BenchError(`gateway_start math failed: ${JSON.stringify(started.payload)}`);
    }

    step(`warm-up: ${WARMUP_CALLS} calls`);
    requireWarm("gateway", await runSequential(() => first.add(), WARMUP_CALLS, shouldStop));

    step(`scenario A: 1 session x ${opts.calls} sequential calls`);
    // The upstream is the gateway's only child once math is started.
    const upstreamPid = childPids(gateway.pid)[0] ?? null;
    const gatewayProbes = {
      gateway: () => processCpuMs(gateway.pid),
      upstream: () => processCpuMs(upstreamPid),
      client: selfCpuMs,
    };
    const sequential = await withCpu(gatewayProbes, () =>
      runScenario([() => first.add()], opts.calls, shouldStop),
    );

    step(`scenario B: ${opts.sessions} sessions x ${opts.perSession} calls, concurrently`);
    const sessions = [];
    for (let i = 0; i < opts.sessions; i++) sessions.push(track(await connectGateway(gateway.address)));
    const concurrent = await withCpu(gatewayProbes, () =>
      runScenario(
        sessions.map((session) => () => session.add()),
        opts.perSession,
        shouldStop,
      ),
    );
    await Promise.all([...sessions, first].map(untrack));
    const memoryAfter = gateway.memory();

    step("stopping the gateway (SIGTERM)");
    const stop = await gateway.stop(STOP_GRACE_MS);
    open.gateway = null;

    step(`baseline: ${relative(ROOT, UPSTREAM)} over stdio, ${opts.calls} sequential calls`);
    const direct = track(await connectDirect(UPSTREAM));
    requireWarm("direct", await runSequential(() => direct.add(), WARMUP_CALLS, shouldStop));
    const directSequential = await withCpu(
      { upstream: () => processCpuMs(direct.pid), client: selfCpuMs },
      () => runScenario([() => direct.add()], opts.calls, shouldStop),
    );
    await untrack(direct);
    if (stopping) return;

    const results = {
      environment: { ...env, load_average_after: loadavg().map((load) => Math.round(load * 100) / 100) },
      parameters: {
        warmup_calls: WARMUP_CALLS,
        calls: opts.calls,
        sessions: opts.sessions,
        per_session: opts.perSession,
        call: "gateway_call {calls:[{mcp_server:'math', tool:'add', arguments:{a:1,b:2}}]}",
      },
      gateway: {
        address: gateway.address,
        startup_ms: round3(gateway.startupMs),
        upstream_start_ms: round3(upstreamStartMs),
        log_lines: gateway.logLines(),
        memory: { idle: memoryIdle, after_run: memoryAfter },
        stop: { ...stop, shutdown_ms: round3(stop.shutdown_ms) },
      },
      scenarios: {
        gateway_sequential: sequential,
        gateway_concurrent: concurrent,
        direct_sequential: directSequential,
      },
      ratios: {
        calls_per_s: ratio(sequential.calls_per_s, directSequential.calls_per_s),
        p50: ratio(sequential.latency_ms.p50, directSequential.latency_ms.p50),
        p99: ratio(sequential.latency_ms.p99, directSequential.latency_ms.p99),
      },
    };
    mkdirSync(dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    console.log(["", ...formatReport(results), `results: ${relative(ROOT, RESULTS_FILE)}`].join("\n"));

    const errors = sequential.errors + concurrent.errors + directSequential.errors;
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

main().catch((error) => {
  console.error(
    error instanceof BenchError || error instanceof GatewayStartError
      ? error.message
      : `benchmark failed: ${error?.stack ?? error}`,
  );
  process.exitCode = 1;
});
