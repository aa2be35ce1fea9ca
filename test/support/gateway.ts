import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { loadConfig, parseConfig } from "../../src/config/load.js";

export const CONTROLLABLE = resolve("test/fixtures/servers/controllable.mjs");
export const FAILS_TO_START = resolve("test/fixtures/servers/fails-to-start.mjs");
export const ARITHMETIC = resolve("examples/servers/arithmetic.mjs");
export const TEXT = resolve("examples/servers/text.mjs");

/** A configuration with the example servers and the controllable test server. */
export function fleetYaml(extra = ""): string {
  return `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    description: Arithmetic tools
  text:
    command: [node, ${JSON.stringify(TEXT)}]
  ctl:
    command: [node, ${JSON.stringify(CONTROLLABLE)}]
    env: {AIRLOCK_TEST_MARKER: marker-value}
  broken:
    command: [node, ${JSON.stringify(FAILS_TO_START)}]
${extra}`;
}

export interface TestGateway {
  gateway: Gateway;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * A gateway wired exactly as `serve` wires it, from YAML text, with its HTTP app (not listening).
 * `env` holds environment variables (`MCP_*` settings) read besides `PATH`.
 */
export async function startTestGateway(
  yaml = fleetYaml(),
  env: Record<string, string> = {},
): Promise<TestGateway> {
  return startGateway(yaml, env, memoryStorage());
}

/**
 * A configuration with the arithmetic server, its store a SQLite file in a temporary folder of its
 * own; `remove` deletes the folder.
 */
export function storedMathConfig(prefix: string): { yaml: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, "airlock.db");
  return {
    yaml: `persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(path)}}}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A gateway on the storage its configuration names (a SQLite file, say), as `serve` opens it: for
 * what must survive a restart, run one after the other on the same file.
 */
export async function startStoredGateway(yaml: string): Promise<TestGateway> {
  return startGateway(yaml, {}, undefined);
}

export interface FileGateway extends TestGateway {
  /** The folder of the file, removed on close. */
  dir: string;
  /** The file the gateway was started with (`--config`). */
  path: string;
}

/**
 * A gateway started from a `config.yaml` of a fresh folder, as `serve --config` starts it: reload,
 * export, backup and diff act on that file. `yaml` is the file's text, or makes it from the folder
 * (for paths beside the file). `mcpConfig` is the environment's `MCP_CONFIG`: the same file unless
 * given (as most deployments do), another path, or null for unset. `close` also removes the folder.
 */
export async function startFileGateway(
  yaml: string | ((dir: string) => string),
  options: { mcpConfig?: string | null } = {},
): Promise<FileGateway> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-file-gateway-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, typeof yaml === "string" ? yaml : yaml(dir));
  const mcpConfig = options.mcpConfig === undefined ? path : options.mcpConfig;
  const env = { PATH: process.env.PATH, ...(mcpConfig !== null && { MCP_CONFIG: mcpConfig }) };
  const loaded = loadConfig({ cliPath: path, env });
  const gateway = await createGateway({
    config: loaded.config,
    env: loaded.env,
    logger: pino({ level: "silent" }),
    instanceLabel: "test",
    storage: memoryStorage(),
    configDir: dir,
    configPath: path,
    environment: { PATH: process.env.PATH },
  });
  const app = await gateway.http();
  return {
    gateway,
    app,
    dir,
    path,
    async close() {
      await app.close();
      await gateway.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startGateway(
  yaml: string,
  env: Record<string, string>,
  storage: ReturnType<typeof memoryStorage> | undefined,
): Promise<TestGateway> {
  const { config, env: settings } = parseConfig(yaml, { env: { PATH: process.env.PATH, ...env } });
  const gateway = await createGateway({
    config,
    env: settings,
    logger: pino({ level: "silent" }),
    instanceLabel: "test",
    ...(storage && { storage }),
  });
  const app = await gateway.http();
  return {
    gateway,
    app,
    async close() {
      await app.close();
      await gateway.shutdown();
    },
  };
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
