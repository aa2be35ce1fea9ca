import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KEPT_BACKUPS } from "../../src/adapters/system/file-config-files.js";
import { runConfigCheck } from "../../src/composition/config-check.js";
import { loadConfig, resolveEnvConfigPath } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";
import {
  ARITHMETIC,
  type FileGateway,
  startFileGateway,
  startTestGateway,
  TEXT,
} from "../support/gateway.js";

/**
 * `/api/config` export, backup and diff (spec 1 "Configuration") against a gateway started from a
 * temporary file, with `MCP_CONFIG` given through the environment the gateway's settings were
 * read from.
 */

const SECRET_ENV = "env-secret-4f1c9a";
const SECRET_TOKEN = "token-secret-77b2e0";

const BASE = `mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
    env: {API_TOKEN: ${SECRET_ENV}, MODE: fast}
    description: Arithmetic tools
  text:
    command: [node, ${JSON.stringify(TEXT)}]
  upstream:
    mode: remote
    endpoint: http://127.0.0.1:9/mcp
    auth: {type: bearer, token: ${SECRET_TOKEN}}
rate_limit:
  rps: 1000
  burst: 1000
config_reload:
  enabled: false
`;

const AUTH = `auth:
  enabled: true
  role_assignments:
    - {principal: ada, role: admin}
`;

const cleanup: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "airlock-config-routes-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A gateway started from `text` as {@link startFileGateway} says, closed after the test. */
async function start(text: string, options: { mcpConfig?: string | null } = {}): Promise<FileGateway> {
  const running = await startFileGateway(text, options);
  cleanup.push(() => running.close());
  return running;
}

/** Started with `--config` and `MCP_CONFIG` naming the same file, as most deployments do. */
const startSame = (text = BASE) => start(text);

describe("POST /api/config/export", () => {
  it("serialises the file's configuration with REST servers and groups, secrets redacted, and passes config check", async () => {
    const { app, dir } = await startSame();
    const registered = await app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      payload: {
        mcp_server_id: "rest-one",
        mode: "subprocess",
        command: ["node", TEXT],
        env: { REST_SECRET: SECRET_ENV },
        description: "registered through REST",
      },
    });
    expect(registered.statusCode).toBe(201);
    expect(
      (await app.inject({ method: "POST", url: "/api/groups/", payload: { group_id: "adhoc" } })).statusCode,
    ).toBe(201);
    const member = await app.inject({
      method: "POST",
      url: "/api/groups/adhoc/members",
      payload: { member_id: "rest-one", weight: 3 },
    });
    expect(member.statusCode).toBeLessThan(300);

    const exported = await app.inject({ method: "POST", url: "/api/config/export" });
    expect(exported.statusCode).toBe(200);
    const { yaml } = exported.json() as { yaml: string };
    expect(yaml).not.toContain(SECRET_ENV);
    expect(yaml).not.toContain(SECRET_TOKEN);

    const path = join(dir, "exported.yaml");
    writeFileSync(path, yaml);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    let code: number;
    try {
      code = runConfigCheck(path);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    expect(code).toBe(0);

    const back = loadConfig({ cliPath: path, env: {}, strict: true }).config;
    expect(Object.keys(back.mcp_servers).sort()).toEqual(["adhoc", "math", "rest-one", "text", "upstream"]);
    // Every environment value may be a secret: all are redacted, their names kept.
    expect(back.mcp_servers.math).toMatchObject({
      env: { API_TOKEN: "[redacted]", MODE: "[redacted]" },
      description: "Arithmetic tools",
    });
    expect(back.mcp_servers.upstream).toMatchObject({ auth: { type: "bearer", token: "[redacted]" } });
    expect(back.mcp_servers["rest-one"]).toMatchObject({
      mode: "subprocess",
      command: ["node", TEXT],
      env: { REST_SECRET: "[redacted]" },
      description: "registered through REST",
    });
    expect(back.mcp_servers.adhoc).toMatchObject({
      mode: "group",
      auto_start: false,
      members: [{ kind: "reference", id: "rest-one", weight: 3 }],
    });
    expect(back.rate_limit).toMatchObject({ rps: 1000, burst: 1000 });
  });

  it("shows what the last reload applied, not what the file says now", async () => {
    const { app, path } = await startSame();
    writeFileSync(path, BASE.replace("Arithmetic tools", "Arithmetic, edited"));
    const before = (await app.inject({ method: "POST", url: "/api/config/export" })).json().yaml as string;
    expect(before).toContain("description: Arithmetic tools");
    expect((await app.inject({ method: "POST", url: "/api/config/reload", payload: {} })).statusCode).toBe(
      200,
    );
    const after = (await app.inject({ method: "POST", url: "/api/config/export" })).json().yaml as string;
    expect(after).toContain("description: Arithmetic, edited");
  });
});

describe("GET /api/config/diff", () => {
  it("answers no difference while the file matches what runs", async () => {
    const { app } = await startSame();
    const res = await app.inject({ method: "GET", url: "/api/config/diff" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ has_diff: false, diff: "" });
    expect(body.on_disk).toBe(body.in_memory);
    expect(body.on_disk).toContain("math:");
  });

  it("shows an edit of the file on disk as a unified diff from on_disk to in_memory", async () => {
    const { app, path } = await startSame();
    writeFileSync(
      path,
      BASE.replace("Arithmetic tools", "Arithmetic, edited").replace(
        "rate_limit:",
        "  extra:\n    command: [node, x.mjs]\nrate_limit:",
      ),
    );
    const body = (await app.inject({ method: "GET", url: "/api/config/diff" })).json();
    expect(body.has_diff).toBe(true);
    expect(body.diff).toMatch(/^--- on_disk\n\+\+\+ in_memory\n@@ /);
    expect(body.diff).toContain("-    description: Arithmetic, edited\n");
    expect(body.diff).toContain("+    description: Arithmetic tools\n");
    expect(body.diff).toContain("-  extra:\n");
    expect(body.on_disk).toContain("extra:");
    expect(body.in_memory).not.toContain("extra:");
  });

  it("counts a changed secret as a difference without showing either value", async () => {
    const { app, path } = await startSame();
    const changed = "env-secret-changed-0d3e";
    writeFileSync(path, BASE.replace(SECRET_ENV, changed));
    const res = await app.inject({ method: "GET", url: "/api/config/diff" });
    const body = res.json();
    expect(body.has_diff).toBe(true);
    expect(body.diff).toContain('-      API_TOKEN: "[redacted]"\n');
    expect(body.diff).toContain('+      API_TOKEN: "[redacted, differs]"\n');
    expect(res.body).not.toContain(SECRET_ENV);
    expect(res.body).not.toContain(changed);
    expect(res.body).not.toContain(SECRET_TOKEN);
  });

  it("reads the file named by MCP_CONFIG, not the one given by --config", async () => {
    const other = join(tempDir(), "other.yaml");
    writeFileSync(other, "mcp_servers: {}\n");
    const { app, path } = await start(BASE, { mcpConfig: other });
    const body = (await app.inject({ method: "GET", url: "/api/config/diff" })).json();
    expect(body.has_diff).toBe(true);
    expect(body.on_disk).toBe("mcp_servers: {}\n");
    expect(body.in_memory).toContain("math:");
    const backup = await app.inject({ method: "POST", url: "/api/config/backup" });
    expect(backup.json()).toEqual({ path: `${other}.bak1` });
    expect(existsSync(`${path}.bak1`)).toBe(false);
  });

  it("answers 503 naming the file when MCP_CONFIG names a missing one", async () => {
    const missing = join(tempDir(), "absent.yaml");
    const { app } = await start(BASE, { mcpConfig: missing });
    for (const [method, url] of [
      ["GET", "/api/config/diff"],
      ["POST", "/api/config/backup"],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({
        code: "ConfigFileUnavailableError",
        message: `configuration file not found: ${missing}`,
      });
    }
  });
});

describe("MCP_CONFIG resolution", () => {
  it("falls back to config.yaml in the working directory, never the --config file", async () => {
    expect(resolveEnvConfigPath({ env: {}, cwd: "/srv/gw" })).toBe("/srv/gw/config.yaml");
    expect(resolveEnvConfigPath({ env: { MCP_CONFIG: "conf/g.yaml" }, cwd: "/srv/gw" })).toBe(
      "/srv/gw/conf/g.yaml",
    );
    expect(resolveEnvConfigPath({ env: { MCP_CONFIG: "  " }, cwd: "/srv/gw" })).toBe("/srv/gw/config.yaml");
    const { gateway, path } = await start(BASE, { mcpConfig: null });
    expect(gateway.services.configFiles?.path).toBe(resolve("config.yaml"));
    expect(gateway.services.configFiles?.path).not.toBe(path);
  });

  it("export, backup and diff answer 503 on a gateway built without a configuration file", async () => {
    const gw = await startTestGateway();
    cleanup.push(() => gw.close());
    for (const [method, url] of [
      ["POST", "/api/config/export"],
      ["POST", "/api/config/backup"],
      ["GET", "/api/config/diff"],
    ] as const) {
      const res = await gw.app.inject({ method, url });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.message).toBe("the gateway was not started from a configuration file");
    }
  });
});

describe("POST /api/config/backup", () => {
  it("copies the file to .bak1 and rotates older copies to .bak2 and beyond", async () => {
    const { app, path } = await startSame();
    const first = await app.inject({ method: "POST", url: "/api/config/backup" });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ path: `${path}.bak1` });
    expect(readFileSync(`${path}.bak1`, "utf8")).toBe(BASE);

    const edited = `${BASE}# second\n`;
    writeFileSync(path, edited);
    expect((await app.inject({ method: "POST", url: "/api/config/backup" })).statusCode).toBe(200);
    expect(readFileSync(`${path}.bak1`, "utf8")).toBe(edited);
    expect(readFileSync(`${path}.bak2`, "utf8")).toBe(BASE);
    // The configuration file itself is never written.
    expect(readFileSync(path, "utf8")).toBe(edited);
  });

  it(`keeps ${KEPT_BACKUPS} backups, deleting the oldest`, async () => {
    const { app, path } = await startSame();
    for (let n = 1; n <= KEPT_BACKUPS + 2; n++) {
      writeFileSync(path, `${BASE}# version ${n}\n`);
      expect((await app.inject({ method: "POST", url: "/api/config/backup" })).statusCode).toBe(200);
    }
    expect(readFileSync(`${path}.bak1`, "utf8")).toContain(`# version ${KEPT_BACKUPS + 2}`);
    expect(readFileSync(`${path}.bak${KEPT_BACKUPS}`, "utf8")).toContain("# version 3");
    expect(existsSync(`${path}.bak${KEPT_BACKUPS + 1}`)).toBe(false);
  });

  it("answers 422 to a body naming config_path on backup and export, and writes nothing", async () => {
    const { app, path } = await startSame();
    for (const url of ["/api/config/backup", "/api/config/export"]) {
      const res = await app.inject({ method: "POST", url, payload: { config_path: "/elsewhere.yaml" } });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.message).toContain("config_path");
    }
    expect(existsSync(`${path}.bak1`)).toBe(false);
    // Any other body is read as no parameters, as before.
    expect((await app.inject({ method: "POST", url: "/api/config/backup", payload: {} })).statusCode).toBe(
      200,
    );
  });

  it("takes backups asked for at once one after another: every one answered, none lost", async () => {
    const { app, path } = await startSame();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => app.inject({ method: "POST", url: "/api/config/backup" })),
    );
    expect(answers.map((res) => res.statusCode)).toEqual(Array(8).fill(200));
    for (let n = 1; n <= 8; n++) expect(readFileSync(`${path}.bak${n}`, "utf8")).toBe(BASE);
    expect(existsSync(`${path}.bak9`)).toBe(false);
  });

  it("answers 503 with the reason when the directory is not writable", async (context) => {
    const { app, dir, path } = await startSame();
    if (!makeReadOnly(dir)) {
      context.skip("running as root without chattr: the directory cannot be made read-only");
      return;
    }
    cleanup.push(() => undoReadOnly(dir));
    const res = await app.inject({ method: "POST", url: "/api/config/backup" });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe("ConfigFileUnavailableError");
    expect(res.json().error.message).toMatch(new RegExp(`^directory ${dir} is not writable \\(E[A-Z]+\\)$`));
    expect(existsSync(`${path}.bak1`)).toBe(false);
  });
});

/**
 * Read-only for everyone: mode 0555, and as root (whom modes do not stop) the immutable attribute.
 * False when neither holds here.
 */
function makeReadOnly(dir: string): boolean {
  chmodSync(dir, 0o555);
  if (process.getuid?.() !== 0) return true;
  return spawnSync("chattr", ["+i", dir]).status === 0;
}

function undoReadOnly(dir: string): void {
  if (process.getuid?.() === 0) spawnSync("chattr", ["-i", dir]);
  chmodSync(dir, 0o755);
}

describe("routing and permissions", () => {
  it("redirects the bare /config with 307", async () => {
    const { app } = await startSame();
    for (const method of ["GET", "POST"] as const) {
      const res = await app.inject({ method, url: "/api/config" });
      expect(res.statusCode).toBe(307);
      expect(res.headers.location).toBe("/api/config/");
    }
  });

  it("needs config:read for export and diff and config:update for backup", async () => {
    const running = await startSame(`${BASE}${AUTH}`);
    const { app, gateway } = running;
    const { repositories, authorizer } = gateway.services;
    const grant = async (principal: string, permissions: string[]) => {
      await repositories.roles.create({
        role_name: `only-${principal}`,
        description: "",
        permissions,
        created_at: Date.now() / 1000,
        created_by: "test",
      });
      await repositories.roleAssignments.assign({
        principal_id: principal,
        role_name: `only-${principal}`,
        scope: "global",
        assigned_by: "test",
        assigned_at: Date.now() / 1000,
      });
      authorizer.invalidate();
      return createApiKey(running, principal);
    };
    const reader = await grant("reader", ["config:read"]);
    const updater = await grant("updater", ["config:update"]);
    const nobody = await createApiKey(running, "nobody");
    const status = async (method: "GET" | "POST", url: string, key?: string) =>
      (await app.inject({ method, url, ...(key && { headers: { "x-api-key": key } }) })).statusCode;

    expect(await status("POST", "/api/config/export")).toBe(401);
    for (const [method, url] of [
      ["POST", "/api/config/export"],
      ["GET", "/api/config/diff"],
    ] as const) {
      expect([url, await status(method, url, reader)]).toEqual([url, 200]);
      expect([url, await status(method, url, updater)]).toEqual([url, 403]);
      expect([url, await status(method, url, nobody)]).toEqual([url, 403]);
    }
    expect(await status("POST", "/api/config/backup", updater)).toBe(200);
    expect(await status("POST", "/api/config/backup", reader)).toBe(403);
    expect(await status("POST", "/api/config/backup", nobody)).toBe(403);
  });
});
