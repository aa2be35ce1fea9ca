import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

/**
 * The MCP server that implements what the suites' server scenarios expect, of both revisions
 * (2025-11-25 sessions, 2026-07-28 stateless), on SDK v2.
 */
export const CONFORMANCE_FIXTURE = resolve("test/fixtures/conformance-dual-era.mjs");

export interface RunningProcess {
  child: ChildProcess;
  /** Everything the process printed so far, for failure messages. */
  output: () => string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `args` with the current Node and resolves once `ready` finds what it waits for in stdout. */
export async function spawnUntil<T>(
  args: string[],
  ready: (stdout: string) => T | undefined,
  options: { cwd?: string; timeoutMs?: number; what: string },
): Promise<RunningProcess & { value: T }> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, MCP_CONFIG: "" },
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  const output = () => `${stdout}${stderr}`.trim();
  const stop = async (graceMs = 5_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  try {
    const value = await new Promise<T>((resolveValue, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.what} was not ready in time:\n${output()}`)),
        options.timeoutMs ?? 15_000,
      );
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const found = ready(stdout);
        if (found !== undefined) {
          clearTimeout(timer);
          resolveValue(found);
        }
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(
          new Error(`${options.what} exited (code ${child.exitCode}) before it was ready:\n${output()}`),
        );
      });
    });
    return { child, output, stop, value };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A fixture over streamable HTTP on a free loopback port; `value` is its `/mcp` URL. */
export function startFixtureHttp(fixture = CONFORMANCE_FIXTURE) {
  return spawnUntil(
    [fixture, "http", "--host", "127.0.0.1", "--port", "0"],
    (stdout) => /\{"listening":"([^"]+)"\}/.exec(stdout)?.[1],
    { what: "the conformance fixture" },
  );
}
