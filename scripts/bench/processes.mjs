// Child processes of the benchmark other than the gateway: the upstreams, the ceiling, the peers and
// the bare fastify server. Start one, learn when it serves, read its memory, stop it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { processTree } from "./cpu.mjs";

/** Log lines kept for the error message when a process fails to start. */
const KEPT_LOG_LINES = 20;

/** A free TCP port on 127.0.0.1 (for the peers, which take no port 0). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Spawns `command args` and resolves once it serves: when `readyUrl` is given, once its port
 * accepts connections; otherwise once stdout carries a line `listening <url>` (the url is then
 * the process's address). Rejects, after killing it, when it exits first or `timeoutMs` passes.
 */
export async function startProcess({ name, command, args, cwd, env, readyUrl, timeoutMs = 30_000 }) {
  const began = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const recent = [];
  const keep = (line) => {
    recent.push(line);
    if (recent.length > KEPT_LOG_LINES) recent.shift();
  };
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  createInterface({ input: child.stderr }).on("line", keep);
  const stdout = createInterface({ input: child.stdout });
  let announced = null;
  const announcedUrl = new Promise((resolve) => {
    stdout.on("line", (line) => {
      keep(line);
      const match = /^listening (\S+)/.exec(line);
      if (match && announced === null) {
        announced = match[1];
        resolve(announced);
      }
    });
  });
  const failed = (why) => new Error(`${name} ${why}\n${recent.join("\n")}`);
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(failed(`did not serve within ${timeoutMs} ms`)), timeoutMs);
  });
  const died = exited.then(({ code, signal }) => {
    throw failed(`exited (code ${code}, signal ${signal}) before serving`);
  });
  try {
    const url = await Promise.race([readyUrl ? waitForHttp(readyUrl) : announcedUrl, deadline, died]);
    return handle(child, exited, url, performance.now() - began, () => recent.slice());
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
    died.catch(() => {});
  }
}

/**
 * Polls the port of `url` until a TCP connection opens; resolves to the url. (A GET of an MCP
 * endpoint may open an event stream that never ends, so the port is the readiness signal.)
 */
async function waitForHttp(url) {
  const { hostname, port } = new URL(url);
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return url;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function handle(child, exited, url, startupMs, recentLogs) {
  return {
    pid: child.pid,
    url,
    startupMs,
    recentLogs,
    /** Resident memory of the process and all its descendants, in MiB. */
    treeRssMib: () => treeRssMib(child.pid),
    /** SIGTERM, then SIGKILL after `graceMs`; resolves to the exit facts. Safe to call twice. */
    async stop(graceMs = 5000) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, graceMs);
      const facts = await exited;
      clearTimeout(timer);
      return { ...facts, killed };
    },
  };
}

/** `VmRSS` of one process in MiB, or null when unreadable (gone, or not Linux). */
export function rssMib(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Sum of `VmRSS` over a process and its descendants, in MiB (shared pages counted in each). */
export function treeRssMib(pid) {
  const values = processTree(pid).map(rssMib);
  if (values[0] === null) return null;
  return Math.round(values.reduce((total, value) => total + (value ?? 0), 0) * 10) / 10;
}
