import { randomBytes } from "node:crypto";
import type { ContainerCreateOptions } from "dockerode";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { DockerFailure } from "./engine-client.js";

/**
 * Spec 2 §2 defaults of the docker keys. The configuration schema applies them to file entries;
 * a server registered through REST carries no options, so they are applied here too.
 */
export const DOCKER_DEFAULTS = {
  network: "none",
  read_only: true,
  memory: "512m",
  cpu: 1,
} as const;

/** Labels put on every container Airlock creates, so they can be found and removed. */
export const LABELS = {
  managed: "airlock.managed",
  server: "airlock.server",
  /** A random id per gateway process: the shutdown sweep removes only this process's containers. */
  process: "airlock.process",
} as const;

/** `build:` as the configuration schema shapes it. */
export interface BuildOptions {
  readonly context: string;
  readonly dockerfile: string;
  readonly args: Readonly<Record<string, string>>;
}

/** The docker keys of one server, defaults applied. */
export interface DockerOptions {
  readonly volumes: readonly string[];
  readonly network: string;
  readonly readOnly: boolean;
  readonly memoryBytes: number;
  readonly nanoCpus: number;
  readonly user?: string;
  readonly build?: BuildOptions;
}

const MEMORY_UNITS: Record<string, number> = { "": 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Docker's memory syntax (binary units, as `docker run --memory`): `512m` is 536870912 bytes. */
export function parseMemory(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([bkmg]?)$/i.exec(text.trim());
  if (!match) return undefined;
  const unit = MEMORY_UNITS[(match[2] ?? "").toLowerCase()] ?? 1;
  return Math.floor(Number(match[1]) * unit);
}

/** A CPU count as the engine's `NanoCpus` (`docker run --cpus 1.5` is 1500000000). */
export function nanoCpus(cpus: number): number {
  return Math.round(cpus * 1e9);
}

/** `current` is the gateway's own uid:gid, so files written to volumes belong to its user. */
export function resolveUser(user: string): string {
  if (user !== "current") return user;
  if (typeof process.getuid !== "function" || typeof process.getgid !== "function") {
    throw new DockerFailure("user 'current' needs a POSIX host (no uid/gid here)");
  }
  return `${process.getuid()}:${process.getgid()}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function invalid(key: string, rule: string): DockerFailure {
  return new DockerFailure(`docker option '${key}' ${rule}`);
}

/**
 * Reads the docker keys from `spec.options`. The configuration schema validated file entries
 * already; this only guards against a caller passing other shapes, with a message naming the key.
 */
export function readDockerOptions(options: Readonly<Record<string, unknown>> | undefined): DockerOptions {
  const raw = options ?? {};
  const volumes = raw.volumes ?? [];
  if (!isStringList(volumes)) throw invalid("volumes", "must be a list of strings");
  const network = raw.network ?? DOCKER_DEFAULTS.network;
  if (typeof network !== "string" || network.trim() === "")
    throw invalid("network", "must be a network name");
  const readOnly = raw.read_only ?? DOCKER_DEFAULTS.read_only;
  if (typeof readOnly !== "boolean") throw invalid("read_only", "must be true or false");
  const resources = raw.resources ?? {};
  if (!isRecord(resources)) throw invalid("resources", "must be a mapping with memory and cpu");
  const memory = resources.memory ?? DOCKER_DEFAULTS.memory;
  const memoryBytes = typeof memory === "string" ? parseMemory(memory) : undefined;
  if (memoryBytes === undefined || memoryBytes <= 0)
    throw invalid("resources.memory", "must be a memory size such as 512m");
  const cpu =
    typeof resources.cpu === "string" ? Number(resources.cpu) : (resources.cpu ?? DOCKER_DEFAULTS.cpu);
  if (typeof cpu !== "number" || !Number.isFinite(cpu) || cpu <= 0)
    throw invalid("resources.cpu", "must be a number of CPUs greater than 0");
  const user = raw.user;
  if (user !== undefined && (typeof user !== "string" || user.trim() === ""))
    throw invalid("user", "must be a user name, uid[:gid] or current");
  return {
    volumes,
    network,
    readOnly,
    memoryBytes,
    nanoCpus: nanoCpus(cpu),
    ...(user !== undefined && { user }),
    ...(raw.build !== undefined && { build: readBuild(raw.build) }),
  };
}

function readBuild(value: unknown): BuildOptions {
  if (!isRecord(value) || typeof value.context !== "string" || value.context.trim() === "")
    throw invalid("build", "must be a mapping with a context path");
  const dockerfile = value.dockerfile ?? "Dockerfile";
  if (typeof dockerfile !== "string") throw invalid("build.dockerfile", "must be a path");
  const args = value.args ?? {};
  if (!isRecord(args) || !Object.values(args).every((item) => typeof item === "string"))
    throw invalid("build.args", "must be a mapping of strings");
  return { context: value.context, dockerfile, args: args as Record<string, string> };
}

/** A container name an operator can recognise: `airlock-<server id>-<8 hex>`. */
export function containerName(serverId: string): string {
  const safe = serverId.replace(/[^A-Za-z0-9_.-]/g, "-");
  return `airlock-${safe}-${randomBytes(4).toString("hex")}`;
}

/**
 * The `POST /containers/create` body: stdin kept open and attached (the MCP stdio channel), no
 * TTY (so stdout and stderr arrive as separate multiplexed streams), the spec's limits, and the
 * Airlock labels. `AutoRemove` stays off: the exit code must stay readable after a crash, and the
 * adapter removes the container itself.
 */
export function createBody(
  spec: ServerSpec,
  options: DockerOptions,
  processId: string,
): ContainerCreateOptions {
  return {
    Image: spec.image,
    ...(spec.args !== undefined && { Cmd: [...spec.args] }),
    Env: Object.entries(spec.env).map(([name, value]) => `${name}=${value}`),
    ...(options.user !== undefined && { User: resolveUser(options.user) }),
    Labels: { [LABELS.managed]: "true", [LABELS.server]: spec.id, [LABELS.process]: processId },
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    HostConfig: {
      Binds: [...options.volumes],
      NetworkMode: options.network,
      ReadonlyRootfs: options.readOnly,
      Memory: options.memoryBytes,
      NanoCpus: options.nanoCpus,
      AutoRemove: false,
    },
  };
}
