// The built gateway as a child process: start it, learn its address, read its memory, stop it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";

/** The gateway did not come up; the message carries its last log lines. */
export class GatewayStartError extends Error {}

/** Log lines kept for the error message when the gateway fails to start or dies. */
const KEPT_LOG_LINES = 20;

/**
 * Starts `[wrapper] node [nodeArgs] <cli> serve --config <configPath> --http --host 127.0.0.1 --port 0 --json-logs`
 * (`wrapper`: a command that runs node in its own process, such as valgrind) and
 * resolves once it logs the JSON line carrying `address`. Start-up time runs from just before the
 * spawn to that line. Rejects if the process exits first or `timeoutMs` passes (then it is killed).
 */
export async function startGateway({
  cliPath,
  configPath,
  cwd,
  env,
  timeoutMs,
  nodeArgs = [],
  wrapper = [],
}) {
  const args = [
    ...wrapper.slice(1),
    ...(wrapper.length > 0 ? [process.execPath] : []),
    ...nodeArgs,
    cliPath,
    "serve",
    "--config",
    configPath,
    "--http",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
  ];
  args.push("--json-logs");
  const began = performance.now();
  const command = wrapper[0] ?? process.execPath;
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const recent = [];
  const keep = (line) => {
    recent.push(line);
    if (recent.length > KEPT_LOG_LINES) recent.shift();
  };
  let logLines = 0;
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });

  // Both streams are read to the end: a full pipe would block the gateway's logging.
  createInterface({ input: child.stderr }).on("line", keep);
  const stdout = createInterface({ input: child.stdout });

  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new GatewayStartError(
          `the gateway did not log its address within ${timeoutMs} ms\n${recent.join("\n")}`,
        ),
      );
    }, timeoutMs);
    stdout.on("line", (line) => {
      logLines++;
      keep(line);
      const record = parseJson(line);
      if (typeof record?.address === "string") {
        clearTimeout(timer);
        resolve(record.address);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new GatewayStartError(
          `the gateway exited (code ${code}, signal ${signal}) before listening\n${recent.join("\n")}`,
        ),
      );
    });
  });
  const startupMs = performance.now() - began;

  return {
    pid: child.pid,
    address,
    startupMs,
    /** Log lines written on stdout so far. */
    logLines: () => logLines,
    recentLogs: () => recent.slice(),
    /** `VmRSS` and `VmHWM` (peak) of the gateway process in MiB; null off Linux. */
    memory: () => readMemory(child.pid),
    exited,
    /**
     * SIGTERM, then waits for the exit; SIGKILL after `graceMs`. Resolves to the exit facts and
     * the time the shutdown took. Safe to call more than once.
     */
    async stop(graceMs) {
      const stopBegan = performance.now();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, graceMs);
      const facts = await exited;
      clearTimeout(timer);
      return { ...facts, killed, shutdown_ms: performance.now() - stopBegan };
    },
  };
}

function parseJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

function readMemory(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kib = (key) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
  };
  return { rss_mib: kib("VmRSS"), peak_rss_mib: kib("VmHWM") };
}
