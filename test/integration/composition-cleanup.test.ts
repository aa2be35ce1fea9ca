import { createHook } from "node:async_hooks";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../../src/app/ports/logger.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { loadConfig } from "../../src/config/load.js";
import { adminQuery, DATABASE_URL, describePostgres } from "../support/backends.js";
import { ARITHMETIC, waitFor } from "../support/gateway.js";
import { descendants, isAlive } from "../support/processes.js";

/** Nothing listens on port 1 of the loopback address: connections are refused at once. */
const NO_REDIS = "redis://127.0.0.1:1/0";

/** What a default configuration opens, in order, before anything is served. */
const OPENED_AT_START = [
  "storage",
  "tracing",
  "event recording",
  "audit trail",
  "leftover containers",
  "fleet",
  "groups",
  "metrics",
  "lifecycle log",
  "digest pin watch",
  "approvals",
];

interface Boot {
  gateway?: Gateway;
  error?: Error;
  /** The resources the gateway closed, in the order it closed them. */
  closed: string[];
  errors: string[];
}

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** A fresh folder with a `config.yaml` whose store is a SQLite file in it. */
function folder(yaml: string): { configPath: string; dbPath: string } {
  dir = mkdtempSync(join(tmpdir(), "airlock-composition-"));
  const dbPath = join(dir, "airlock.db");
  const configPath = join(dir, "config.yaml");
  writeFileSync(
    configPath,
    `persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(dbPath)}}}\n${yaml}`,
  );
  return { configPath, dbPath };
}

/** Starts a gateway from a file as `serve --config` does, storage included; the start may be refused. */
async function boot(configPath: string, env: Record<string, string> = {}): Promise<Boot> {
  const closed: string[] = [];
  const errors: string[] = [];
  const logger: Logger = {
    debug: (fields) => {
      if (typeof fields.resource === "string") closed.push(fields.resource);
    },
    info: () => {},
    warn: () => {},
    error: (_fields, message) => errors.push(message),
  };
  const loaded = loadConfig({ cliPath: configPath, env: { PATH: process.env.PATH, ...env } });
  try {
    const gateway = await createGateway({
      config: loaded.config,
      env: loaded.env,
      logger,
      instanceLabel: "test",
      configDir: dir,
      configPath,
    });
    return { gateway, closed, errors };
  } catch (error) {
    return { error: error as Error, closed, errors };
  }
}

/** Paths of this process's open file descriptors under `prefix`. */
function openFilesUnder(prefix: string): string[] {
  const paths: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(prefix)) paths.push(target);
    } catch {
      // Closed while we read.
    }
  }
  return paths;
}

/**
 * Timers, sockets, pipes, child processes and file watches created while `body` runs, by kind, that
 * are still alive when `live` is asked: unreferenced ones included (`getActiveResourcesInfo` omits
 * those, yet an interval nobody clears is a leak all the same). `stop` ends the tracking.
 */
async function tracked<T>(
  body: () => Promise<T>,
): Promise<{ result: T; live: () => string[]; stop: () => void }> {
  const kinds = new Set(["Timeout", "TCPWRAP", "PIPEWRAP", "PROCESSWRAP", "FSEVENTWRAP", "STATWATCHER"]);
  const alive = new Map<number, string>();
  let recording = true;
  const hook = createHook({
    init(id, type) {
      if (recording && kinds.has(type)) alive.set(id, type);
    },
    destroy(id) {
      alive.delete(id);
    },
  });
  hook.enable();
  try {
    const result = await body();
    // What is created from now on (the test's own polling) is not the gateway's.
    recording = false;
    return { result, live: () => [...alive.values()].sort(), stop: () => hook.disable() };
  } catch (error) {
    hook.disable();
    throw error;
  }
}

describe("a composition that fails mid-way", () => {
  it("closes the tracing and the storage it opened when Redis refuses the continuation store", async () => {
    const { configPath, dbPath } = folder(
      `truncation: {enabled: true, cache_driver: redis, redis_url: "${NO_REDIS}"}\n`,
    );
    const { error, closed } = await boot(configPath);
    expect(error?.message).toMatch(/^truncation\.redis_url: /);
    expect(closed).toEqual(["tracing", "storage"]);
    expect(openFilesUnder(dbPath)).toEqual([]);
  });

  it("closes the records, continuations, tracing and storage when the compliance output cannot be opened", async () => {
    const { configPath, dbPath } = folder("truncation: {enabled: true}\n");
    const { error, closed } = await boot(configPath, {
      MCP_COMPLIANCE_FORMAT: "json-lines",
      MCP_COMPLIANCE_OUTPUT: join(dir, "missing-folder", "siem.log"),
    });
    expect(error).toBeDefined();
    expect(closed).toEqual(["audit trail", "event recording", "continuations", "tracing", "storage"]);
    expect(openFilesUnder(dbPath)).toEqual([]);
  });

  it("closes the lifecycle log, metrics, groups and fleet when the stored groups cannot be read", async () => {
    const { configPath, dbPath } = folder("");
    const first = await boot(configPath);
    await first.gateway?.shutdown();
    // Groups created through REST are read once the fleet, its groups and metrics opened.
    const db = new Database(dbPath);
    db.exec("drop table group_configs");
    db.close();

    const { error, closed } = await boot(configPath);
    expect(error?.message).toMatch(/group_configs/);
    expect(closed).toEqual(OPENED_AT_START.slice(0, OPENED_AT_START.indexOf("lifecycle log") + 1).reverse());
    expect(openFilesUnder(dbPath)).toEqual([]);
  });

  it("closes the approval gate and everything before it when a startup check refuses the boot", async () => {
    const { configPath, dbPath } = folder(`
approvals:
  delivery: {required: true, redis_url: "${NO_REDIS}"}
  webhook: {url: "http://127.0.0.1:9/hook"}
mcp_servers:
  hooked:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    tools: {approval_list: [add], approval_channel: webhook}
`);
    const { error, closed } = await boot(configPath);
    expect(error?.message).toMatch(/^startup checks refused the boot:/);
    expect(closed).toEqual([...OPENED_AT_START].reverse());
    expect(openFilesUnder(dbPath)).toEqual([]);
  });
});

await describePostgres("a composition on PostgreSQL that fails mid-way", () => {
  it("ends the pool's connections", async () => {
    const schema = `compose_${Date.now().toString(36)}`;
    const application = `airlock-${schema}`;
    await adminQuery(`create schema ${schema}`);
    try {
      const url = new URL(DATABASE_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const { configPath } = folder("");
      writeFileSync(
        configPath,
        `persistence:
  backend: postgresql
  postgresql: {connectionString: ${JSON.stringify(url.toString())}, application_name: ${application}}
truncation: {enabled: true, cache_driver: redis, redis_url: "${NO_REDIS}"}
`,
      );
      const connections = async () =>
        Number(
          (
            await adminQuery(
              `select count(*) as n from pg_stat_activity where application_name = '${application}'`,
            )
          ).rows[0].n,
        );
      const { error, closed } = await boot(configPath);
      expect(error?.message).toMatch(/^truncation\.redis_url: /);
      expect(closed).toEqual(["tracing", "storage"]);
      await waitFor(async () => (await connections()) === 0, 5_000);
    } finally {
      await adminQuery(`drop schema ${schema} cascade`);
    }
  });
});

describe("a gateway's shutdown", () => {
  it("closes everything it opened, last opened first, and leaves no process, file, timer or socket", async () => {
    const yaml = `
truncation: {enabled: true}
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
`;
    const run = async () => {
      const { configPath, dbPath } = folder(yaml);
      const compliance = join(dir, "siem.log");
      const { gateway, error, closed, errors } = await boot(configPath, {
        MCP_COMPLIANCE_FORMAT: "json-lines",
        MCP_COMPLIANCE_OUTPUT: compliance,
      });
      if (!gateway) throw error;
      const app = await gateway.http();
      gateway.startBackground();
      const math = gateway.services.fleet.require("math");
      await gateway.services.fleet.start(math, true);
      const children = descendants(process.pid);
      expect(children.length).toBeGreaterThan(0);
      await app.close();
      await gateway.shutdown();
      return { closed, errors, children, files: [dbPath, compliance] };
    };
    // Modules load their lasting state (caches, the first DNS lookup) on first use: what the
    // second run leaves alive is what a shutdown leaks.
    const before = descendants(process.pid);
    await run();
    const { result, live, stop } = await tracked(run);
    const { closed, errors, children, files } = result;

    expect(closed).toEqual([
      "coordination",
      "configuration file watch",
      "background loops",
      "MCP endpoint",
      "approvals",
      "digest pin watch",
      "lifecycle log",
      "metrics",
      "groups",
      "fleet",
      "leftover containers",
      "compliance export",
      "audit trail",
      "event recording",
      "continuations",
      "tracing",
      "storage",
    ]);
    expect(errors).toEqual([]);
    for (const pid of children.filter((pid) => !before.includes(pid))) expect(isAlive(pid)).toBe(false);
    for (const file of files) expect(openFilesUnder(file)).toEqual([]);
    try {
      await waitFor(() => live().length === 0, 5_000).catch(() => undefined);
      expect(live()).toEqual([]);
    } finally {
      stop();
    }
  });
});
