import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { parseConfig } from "../../src/config/load.js";
import { adminQuery, DATABASE_URL, describePostgres } from "../support/backends.js";
import { TEXT } from "../support/gateway.js";

const silent = pino({ level: "silent" });

async function start(yaml: string): Promise<Gateway> {
  const { config, env } = parseConfig(yaml, { env: { PATH: process.env.PATH } });
  return createGateway({ config, env, logger: silent, instanceLabel: "restart" });
}

const registration = {
  mcp_server_id: "kept",
  mode: "subprocess",
  command: ["node", TEXT],
  env: { SECRET_TOKEN: "s3cr3t-value" },
  description: "registered through REST",
};

/** Register, call, write a key and a policy; restart on the same store; everything is there. */
async function restartRoundTrip(yaml: string): Promise<void> {
  const first = await start(yaml);
  const app = await first.http();
  const created = await app.inject({ method: "POST", url: "/api/mcp_servers/", payload: registration });
  expect(created.statusCode).toBe(201);
  const remote = await app.inject({
    method: "POST",
    url: "/api/mcp_servers/",
    payload: {
      mcp_server_id: "far",
      mode: "remote",
      endpoint: "https://93.184.216.34/mcp?api_key=topsecret",
    },
  });
  expect(remote.statusCode).toBe(201);
  const { fleet, invoker, repositories } = first.services;
  await invoker.call(fleet.require("kept"), "reverse", { text: "abc" }, { callId: "c1", timeoutMs: 10_000 });
  await repositories.apiKeys.create({
    key_id: "k1",
    key_hash: "a".repeat(64),
    principal_id: "alice",
    name: "ci",
    created_by: "admin",
    created_at: 1,
    expires_at: null,
    tenant_id: null,
  });
  await repositories.toolAccessPolicies.set({
    scope: "provider",
    target_id: "kept",
    allow_list: ["rev*"],
    deny_list: [],
    updated_at: 1,
    updated_by: "admin",
  });
  expect(
    (
      await app.inject({
        method: "POST",
        url: "/api/groups/",
        payload: { group_id: "crew", strategy: "priority" },
      })
    ).statusCode,
  ).toBe(201);
  expect(
    (
      await app.inject({
        method: "POST",
        url: "/api/groups/crew/members",
        payload: { member_id: "kept", priority: 3 },
      })
    ).statusCode,
  ).toBe(201);
  await app.close();
  await first.shutdown();

  const second = await start(yaml);
  try {
    const app2 = await second.http();
    const detail = await app2.inject({ method: "GET", url: "/api/mcp_servers/kept" });
    expect(detail.statusCode).toBe(200);
    expect(second.services.fleet.require("kept").spec).toMatchObject({
      source: "api",
      description: "registered through REST",
    });

    const crew = (await app2.inject({ method: "GET", url: "/api/groups/crew" })).json();
    expect(crew).toMatchObject({
      strategy: "priority",
      total_members: 1,
      members: [{ id: "kept", priority: 3 }],
    });
    expect((await app2.inject({ method: "DELETE", url: "/api/groups/crew" })).statusCode).toBe(200);

    const history = (await app2.inject({ method: "GET", url: "/api/mcp_servers/kept/tools/history" })).json();
    expect(history.total).toBe(1);
    expect(history.history[0]).toMatchObject({
      event_type: "ToolInvocationCompleted",
      tool_name: "reverse",
      call_id: "c1",
    });

    const config = await app2.inject({ method: "GET", url: "/api/config/" });
    expect(config.json().config.mcp_servers).toContainEqual(
      expect.objectContaining({ mcp_server_id: "kept", env_keys: ["SECRET_TOKEN"] }),
    );
    expect(config.body).not.toContain("s3cr3t-value");
    expect(config.body).not.toContain("topsecret");
    expect(config.json().config.mcp_servers).toContainEqual(
      expect.objectContaining({
        mcp_server_id: "far",
        endpoint: "https://93.184.216.34/mcp?api_key=%5Bredacted%5D",
      }),
    );

    expect(await second.services.repositories.apiKeys.findByHash("a".repeat(64))).toMatchObject({
      key_id: "k1",
    });
    expect(await second.services.repositories.toolAccessPolicies.get("provider", "kept")).toMatchObject({
      allow_list: ["rev*"],
    });

    const deleted = await app2.inject({ method: "DELETE", url: "/api/mcp_servers/kept" });
    expect(deleted.statusCode).toBe(200);
    expect((await app2.inject({ method: "DELETE", url: "/api/mcp_servers/far" })).statusCode).toBe(200);
    await app2.close();
  } finally {
    await second.shutdown();
  }
  const third = await start(yaml);
  expect(third.services.fleet.has("kept")).toBe(false);
  await third.shutdown();
}

describe("persistence across a restart", () => {
  it("on SQLite keeps servers registered through REST, their events, keys and policies", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "airlock-restart-")), "airlock.db");
    await restartRoundTrip(`persistence: {backend: sqlite, sqlite: {path: ${JSON.stringify(path)}}}\n`);
  });
});

await describePostgres("persistence across a restart on PostgreSQL", () => {
  it("keeps servers registered through REST, their events, keys and policies", async () => {
    const schema = `restart_${Date.now().toString(36)}`;
    await adminQuery(`create schema ${schema}`);
    try {
      const url = new URL(DATABASE_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      await restartRoundTrip(
        `persistence:\n  backend: postgresql\n  postgresql: {connectionString: ${JSON.stringify(url.toString())}}\n`,
      );
    } finally {
      await adminQuery(`drop schema ${schema} cascade`);
    }
  });
});

describe("a durable store that cannot open", () => {
  const unreachable =
    "persistence:\n  backend: postgresql\n  postgresql: {host: 127.0.0.1, port: 1, connectionTimeoutMillis: 500}\n";

  it("refuses the start", async () => {
    await expect(start(unreachable)).rejects.toThrow(/storage/);
  });

  it("with allow_memory_fallback runs in memory and answers 503 on readiness", async () => {
    const gateway = await start(`${unreachable}event_store: {allow_memory_fallback: true}\n`);
    try {
      const app = await gateway.http();
      const ready = await app.inject({ method: "GET", url: "/health/ready" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({
        status: "unhealthy",
        event_store: { status: "unhealthy", durable: false },
      });
      expect((await app.inject({ method: "GET", url: "/api/config/" })).json()).toEqual({ config: {} });
      await app.close();
    } finally {
      await gateway.shutdown();
    }
  });
});
