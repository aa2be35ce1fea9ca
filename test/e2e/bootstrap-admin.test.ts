import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sqlRepositories } from "../../src/adapters/store/sql/sql-repositories.js";
import { openSqlite } from "../../src/adapters/store/sqlite/open-sqlite.js";
import { runCli, serveHttp, writeTempConfig } from "../support/cli.js";

/** `mcp_` and 32 random bytes in URL-safe base64 without padding. */
const RAW_KEY = /^mcp_[A-Za-z0-9_-]{43}$/;

function sqliteConfig(authEnabled = false): { path: string; database: string } {
  const database = join(mkdtempSync(join(tmpdir(), "airlock-bootstrap-")), "airlock.db");
  const path = writeTempConfig(`
persistence:
  backend: sqlite
  sqlite: {path: ${JSON.stringify(database)}}
auth:
  enabled: ${authEnabled}
`);
  return { path, database };
}

async function readBack(database: string) {
  const store = await openSqlite({ path: database });
  try {
    const repositories = sqlRepositories(store);
    return {
      principals: await repositories.roleAssignments.listPrincipals(),
      assignments: await repositories.roleAssignments.listByPrincipal("ops-admin"),
      keys: await repositories.apiKeys.list("ops-admin", true),
      findByHash: (hash: string) => repositories.apiKeys.findByHash(hash),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

describe("airlock auth bootstrap-admin", () => {
  it("creates the principal's key and global admin role, printing the raw key alone on stdout", async () => {
    const { path, database } = sqliteConfig();
    const result = runCli([
      "auth",
      "bootstrap-admin",
      "--config",
      path,
      "--principal",
      "ops-admin",
      "--show-key",
    ]);
    expect(result.stderr).toContain("admin role granted to principal 'ops-admin'");
    expect(result.code).toBe(0);
    const raw = result.stdout.trim();
    expect(raw).toMatch(RAW_KEY);
    expect(result.stdout).toBe(`${raw}\n`);
    expect(result.stderr).not.toContain(raw);

    const stored = await readBack(database);
    try {
      expect(stored.assignments).toMatchObject([
        { principal_id: "ops-admin", role_name: "admin", scope: "global", assigned_by: "bootstrap-admin" },
      ]);
      expect(stored.keys).toHaveLength(1);
      const key = stored.keys[0]!;
      expect(key).toMatchObject({ principal_id: "ops-admin", created_by: "bootstrap-admin", revoked: false });
      // Stored as SHA-256 only: the hash finds the key, the raw key is nowhere in the record.
      const hash = createHash("sha256").update(raw).digest("hex");
      expect(key.key_hash).toBe(hash);
      expect((await stored.findByHash(hash))?.key_id).toBe(key.key_id);
      expect(JSON.stringify(key)).not.toContain(raw.slice(4));
    } finally {
      await stored.close();
    }
  });

  it("claims once: a second run is refused and changes nothing", async () => {
    const { path, database } = sqliteConfig();
    expect(
      runCli(["auth", "bootstrap-admin", "--config", path, "--principal", "ops-admin", "--show-key"]).code,
    ).toBe(0);
    const again = runCli([
      "auth",
      "bootstrap-admin",
      "--config",
      path,
      "--principal",
      "intruder",
      "--show-key",
    ]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("principal 'ops-admin' already holds the admin role");
    const stored = await readBack(database);
    try {
      expect(stored.principals).toEqual(["ops-admin"]);
    } finally {
      await stored.close();
    }
  });

  it("refuses the memory storage driver", () => {
    const path = writeTempConfig("auth:\n  storage: {driver: memory}\n");
    const result = runCli(["auth", "bootstrap-admin", "--config", path, "--show-key"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/needs durable storage.*auth\.storage\.driver is memory/);
  });

  it("refuses to run without --show-key while only API keys are enabled", async () => {
    const { path, database } = sqliteConfig();
    const result = runCli(["auth", "bootstrap-admin", "--config", path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("--show-key is required");
    const stored = await readBack(database).catch(() => null);
    // Refused before storage was opened: nothing was written, perhaps not even the file.
    if (stored) {
      expect(stored.principals).toEqual([]);
      await stored.close();
    }
  });

  it("refuses an invalid principal id, naming the rule", () => {
    const { path } = sqliteConfig();
    const result = runCli([
      "auth",
      "bootstrap-admin",
      "--config",
      path,
      "--principal",
      " admin",
      "--show-key",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--principal must be a non-empty string");
  });

  it("defaults the principal to admin", async () => {
    const { path } = sqliteConfig();
    const result = runCli(["auth", "bootstrap-admin", "--config", path, "--show-key"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("principal 'admin'");
  });
});

describe("the bootstrapped admin", () => {
  it("manages auth over REST on a gateway with authentication on", async () => {
    const authOn = sqliteConfig(true).path;
    const bootstrap = runCli([
      "auth",
      "bootstrap-admin",
      "--config",
      authOn,
      "--principal",
      "ops-admin",
      "--show-key",
    ]);
    expect(bootstrap.code).toBe(0);
    const adminKey = bootstrap.stdout.trim();

    const gateway = await serveHttp(authOn);
    try {
      const call = (method: string, url: string, key: string | null, body?: unknown) =>
        fetch(new URL(`/api${url}`, gateway.baseUrl), {
          method,
          headers: {
            ...(key && { "x-api-key": key }),
            ...(body !== undefined && { "content-type": "application/json" }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });

      expect((await call("GET", "/auth/permissions", null)).status).toBe(401);
      const created = await call("POST", "/auth/keys", adminKey, { principal_id: "reader", name: "ci" });
      expect(created.status).toBe(201);
      const key = (await created.json()) as { key_id: string; raw_key: string; created_by: string };
      expect(key.created_by).toBe("ops-admin");

      // The new key authenticates, but it is not an admin's.
      expect((await call("GET", "/auth/permissions", key.raw_key)).status).toBe(403);
      const assigned = await call("POST", "/auth/roles/assign", adminKey, {
        principal_id: "reader",
        role_name: "viewer",
        scope: "global",
      });
      expect(assigned.status).toBe(200);
      expect((await call("GET", "/mcp_servers/", key.raw_key)).status).toBe(200);

      expect((await call("DELETE", `/auth/keys/${key.key_id}`, adminKey, { reason: "done" })).status).toBe(
        200,
      );
      expect((await call("GET", "/mcp_servers/", key.raw_key)).status).toBe(401);
    } finally {
      gateway.child.kill("SIGTERM");
      await gateway.exited;
    }
  });
});
