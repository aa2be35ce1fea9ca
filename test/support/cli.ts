import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The built CLI, as `npm start` and the `airlock` bin run it. */
export const CLI = resolve("dist/cli.js");

export function writeTempConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), "airlock-cli-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, yaml);
  return path;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, MCP_CONFIG: "", ...env },
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface ServingGateway {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<number | null>;
  stdout: () => string;
}

/** Runs `airlock serve --http` on a free port (of loopback, or `host`) and resolves once it listens. */
export async function serveHttp(configPath: string, host = "127.0.0.1"): Promise<ServingGateway> {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--config", configPath, "--http", "--host", host, "--port", "0", "--json-logs"],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MCP_CONFIG: "" } },
  );
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not listen in time: ${out}${err}`)), 15_000);
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /"address":"(http:\/\/[^"]+)"/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    void exited.then((code) => reject(new Error(`gateway exited with ${code}: ${err}`)));
  });
  return { child, baseUrl, exited, stdout: () => out };
}
