import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/adapters/store/postgres/open-postgres.js";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import type {
  DiscoveredServer,
  DiscoveryScan,
  DiscoverySource,
} from "../../src/app/ports/discovery-source.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage, type Storage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import {
  type KubernetesApiFake,
  startKubernetesApiFake,
} from "../fixtures/kubernetes-fake/kubernetes-api-fake.js";
import { createApiKey } from "../support/api-keys.js";
import { DATABASE_URL, describePostgres, freshPostgres, sharedPostgresStorage } from "../support/backends.js";
import { ARITHMETIC, waitFor } from "../support/gateway.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/http-mcp-server.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * Discovery end to end: a source reports servers, the cycle registers, holds or quarantines them,
 * operators approve through REST and tools, and the registered servers start and answer calls
 * (real subprocesses and a real streamable HTTP server on loopback).
 *
 * The source is an in-test implementation of the port (what a directory of definition files would
 * report): the cycle, not the adapters, is under test here.
 */
class ReportedServers implements DiscoverySource {
  readonly type = "filesystem" as const;
  servers: DiscoveredServer[] = [];
  failure: string | null = null;
  scans = 0;

  async scan(): Promise<DiscoveryScan> {
    this.scans += 1;
    if (this.failure) throw new Error(this.failure);
    return { servers: [...this.servers], problems: [] };
  }

  report(name: string, definition: Record<string, unknown>): void {
    this.servers = [
      ...this.servers.filter((s) => s.name !== name),
      { name, definition, connectionInfo: { file: `servers.d/${name}.yaml` } },
    ];
  }

  forget(name: string): void {
    this.servers = this.servers.filter((s) => s.name !== name);
  }
}

const adder = { command: ["node", ARITHMETIC], description: "found by discovery" };

interface DiscoveryGateway {
  gateway: Gateway;
  app: FastifyInstance;
  client: Client | null;
  source: ReportedServers;
  close(): Promise<void>;
}

/**
 * `connect: false` with authentication on: the tests then speak REST with API keys only.
 * `realAdapters`: the gateway builds its own source adapters from the configuration.
 */
async function startDiscoveryGateway(
  yaml: string,
  options: { connect?: boolean; realAdapters?: boolean; storage?: Storage } = {},
): Promise<DiscoveryGateway> {
  const source = new ReportedServers();
  const { config, env } = parseConfig(yaml, { env: { PATH: process.env.PATH } });
  const gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "test",
    storage: options.storage ?? memoryStorage(),
    ...(!options.realAdapters && { discoverySources: () => source }),
  });
  const app = await gateway.http();
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  const client = options.connect === false ? null : await connectHttp(address);
  return {
    gateway,
    app,
    client,
    source,
    async close() {
      await client?.close();
      await app.close();
      await gateway.shutdown();
    },
  };
}

const discoveryYaml = (settings: string, mode: string) => `
discovery:
  enabled: true
  # Cycles are asked for by the tests (gateway_discover, scan); the periodic one never fires here.
  refresh_interval_s: 3600
${settings}
  sources:
    - {type: filesystem, mode: ${mode}, path: ./servers.d}
`;

describe("discovery with auto-registration, authoritative", () => {
  let gw: DiscoveryGateway;
  let remote: HttpMcpServer;

  beforeAll(async () => {
    remote = await startHttpMcpServer();
    gw = await startDiscoveryGateway(
      discoveryYaml("  max_registrations_per_minute: 2\n  max_servers_per_source: 3", "authoritative"),
    );
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.close();
  });

  it("registers a found server, which starts and answers a tool call", async () => {
    gw.source.report("adder", adder);
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json).toMatchObject({ discovered_count: 1, registered_count: 1, quarantined_count: 0 });
    expect(json.source_results.filesystem).toMatchObject({ source_type: "filesystem", registered: 1 });
    const start = await gw.app.inject({ method: "POST", url: "/api/mcp_servers/adder/start" });
    expect(start.statusCode).toBe(200);
    const call = await callJson(gw.client as Client, "gateway_call", {
      calls: [{ mcp_server: "adder", tool: "add", arguments: { a: 2, b: 3 } }],
    });
    expect(call.json.results[0]).toMatchObject({ success: true });
    expect(JSON.stringify(call.json.results[0].result)).toContain("5");
  });

  it("registers a loopback HTTP endpoint without the SSRF guard after its health probe passes", async () => {
    gw.source.report("shouter", { mode: "remote", endpoint: remote.url });
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.registered_count).toBe(1);
    const call = await callJson(gw.client as Client, "gateway_call", {
      calls: [{ mcp_server: "shouter", tool: "shout", arguments: { text: "found" } }],
    });
    expect(call.json.results[0]).toMatchObject({ success: true, result: { content: [{ text: "FOUND" }] } });
  });

  it("quarantines past the per-source registration rate, and approving registers it", async () => {
    gw.source.report("third", adder);
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json).toMatchObject({ registered_count: 0, quarantined_count: 1 });
    const listed = await callJson(gw.client as Client, "gateway_quarantine");
    expect(listed.json.quarantined.third).toMatchObject({
      source_type: "filesystem",
      reason: expect.stringMatching(/^rate_limited: /),
      connection_info: { file: "servers.d/third.yaml" },
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      quarantined_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const approved = await callJson(gw.client as Client, "gateway_approve", { name: "third" });
    expect(approved.json).toEqual({ approved: true, mcp_server: "third", status: "registered" });
    expect(gw.gateway.services.fleet.get("third")?.spec.source).toBe("discovery");
    const again = await callJson(gw.client as Client, "gateway_discover");
    expect(again.json).toMatchObject({ registered_count: 0, quarantined_count: 0 });
  });

  it("quarantines past the per-source count cap", async () => {
    gw.source.report("fourth", adder);
    await callJson(gw.client as Client, "gateway_discover");
    const listed = await gw.app.inject({ method: "GET", url: "/api/discovery/quarantined" });
    expect(listed.json().quarantined.fourth.reason).toMatch(/^source_limit: /);
    gw.source.forget("fourth");
    await callJson(gw.client as Client, "gateway_discover");
    expect((await gw.app.inject({ method: "GET", url: "/api/discovery/quarantined" })).json()).toEqual({
      quarantined: {},
    });
  });

  it("quarantines a definition the configuration schema refuses, naming the field; reject removes it for good", async () => {
    gw.source.forget("third");
    gw.source.report("bad", { command: "node server.js" });
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.quarantined_count).toBe(1);
    const { quarantined } = (
      await gw.app.inject({ method: "GET", url: "/api/discovery/quarantined" })
    ).json();
    expect(quarantined.bad.reason).toMatch(/^invalid_definition: command: must be a non-empty list/);
    const approve = await gw.app.inject({ method: "POST", url: "/api/discovery/approve/bad" });
    expect(approve.statusCode).toBe(200);
    expect(approve.json()).toMatchObject({
      approved: false,
      mcp_server: "bad",
      error: expect.stringMatching(/command/),
    });
    const reject = await gw.app.inject({ method: "POST", url: "/api/discovery/reject/bad" });
    expect(reject.json()).toEqual({ rejected: true, mcp_server: "bad" });
    const again = await callJson(gw.client as Client, "gateway_discover");
    expect(again.json.quarantined_count).toBe(0);
    const rejectAgain = await gw.app.inject({ method: "POST", url: "/api/discovery/reject/bad" });
    expect(rejectAgain.json()).toMatchObject({
      rejected: false,
      mcp_server: "bad",
      error: expect.any(String),
    });
  });

  it("quarantines an HTTP endpoint whose health probe fails", async () => {
    gw.source.forget("bad");
    gw.source.report("silent", { mode: "remote", endpoint: "http://127.0.0.1:1/mcp" });
    await callJson(gw.client as Client, "gateway_discover");
    const listed = await callJson(gw.client as Client, "gateway_quarantine");
    expect(listed.json.quarantined.silent.reason).toMatch(/^health_check_failed: /);
    expect(gw.gateway.services.fleet.has("silent")).toBe(false);
  });

  it("tries a server quarantined for a failed probe again once its endpoint answers", async () => {
    gw.source.forget("silent");
    // A port that refuses connections until the test lets it through to the real HTTP server.
    let open = false;
    const gate = createServer((socket) => {
      if (!open) return socket.destroy();
      const upstream = connect(Number(new URL(remote.url).port), "127.0.0.1");
      socket.pipe(upstream).pipe(socket);
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
    const { port } = gate.address() as AddressInfo;
    const quarantined: unknown[] = [];
    const stop = gw.gateway.services.bus.subscribe((event) => {
      if (event.type === "DiscoveredServerQuarantined" && event.mcp_server_id === "late")
        quarantined.push(event);
    });
    try {
      gw.source.report("late", { mode: "remote", endpoint: `http://127.0.0.1:${port}/mcp` });
      await callJson(gw.client as Client, "gateway_discover");
      await callJson(gw.client as Client, "gateway_discover");
      const listed = await callJson(gw.client as Client, "gateway_quarantine");
      expect(listed.json.quarantined.late.reason).toMatch(/^health_check_failed: /);
      expect(quarantined).toHaveLength(1);
      open = true;
      // Tried again: the probe passes now, and the source's registration rate (2 a minute, spent by
      // the servers registered above) is what holds it; a quarantine for a new reason is announced.
      await callJson(gw.client as Client, "gateway_discover");
      const after = await callJson(gw.client as Client, "gateway_quarantine");
      expect(after.json.quarantined.late.reason).toMatch(/^rate_limited: /);
      expect(quarantined).toHaveLength(2);
    } finally {
      stop();
      gw.source.forget("late");
      await callJson(gw.client as Client, "gateway_discover");
      await new Promise((resolve) => gate.close(resolve));
    }
  });

  it("refuses a name that belongs to another server", async () => {
    gw.source.forget("silent");
    await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/",
      payload: { mcp_server_id: "taken", mode: "subprocess", command: ["node", ARITHMETIC] },
    });
    gw.source.report("taken", adder);
    await callJson(gw.client as Client, "gateway_discover");
    const listed = await callJson(gw.client as Client, "gateway_quarantine");
    expect(listed.json.quarantined.taken.reason).toMatch(/^name_conflict: /);
    expect(gw.gateway.services.fleet.get("taken")?.spec.source).toBe("api");
    gw.source.forget("taken");
  });

  it("deregisters a server the authoritative source no longer reports", async () => {
    gw.source.forget("adder");
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.deregistered_count).toBe(1);
    expect(gw.gateway.services.fleet.has("adder")).toBe(false);
    expect(gw.gateway.services.fleet.has("shouter")).toBe(true);
  });

  it("keeps what it found when the source cannot be read, and reports the failure on the source", async () => {
    gw.source.failure = "directory ./servers.d does not exist";
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json).toMatchObject({ deregistered_count: 0, error_count: 1 });
    const { json: listing } = await callJson(gw.client as Client, "gateway_sources");
    expect(listing.sources).toEqual([
      expect.objectContaining({
        id: "filesystem",
        source_type: "filesystem",
        mode: "authoritative",
        is_healthy: false,
        is_enabled: true,
        error_message: "directory ./servers.d does not exist",
        mcp_servers_count: 1,
      }),
    ]);
    expect(gw.gateway.services.fleet.has("shouter")).toBe(true);
    gw.source.failure = null;
  });
});

describe("a changed definition that fails validation", () => {
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    gw = await startDiscoveryGateway(discoveryYaml("", "authoritative"));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("keeps the registered server running its old definition; rejected, the update is ignored and the server stays", async () => {
    gw.source.report("adder", adder);
    await callJson(gw.client as Client, "gateway_discover");
    gw.source.report("adder", { command: ["node", ARITHMETIC], idle_ttl_s: 0 });
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json).toMatchObject({ updated_count: 0, quarantined_count: 1 });
    const listed = await callJson(gw.client as Client, "gateway_quarantine");
    expect(listed.json.quarantined.adder.reason).toMatch(/^invalid_definition: idle_ttl_s: /);
    expect(gw.gateway.services.fleet.get("adder")?.spec.description).toBe("found by discovery");
    const rejected = await callJson(gw.client as Client, "gateway_approve", {
      name: "adder",
      approve: false,
    });
    expect(rejected.json).toEqual({ rejected: true, mcp_server: "adder" });
    const again = await callJson(gw.client as Client, "gateway_discover");
    expect(again.json).toMatchObject({ deregistered_count: 0, quarantined_count: 0, updated_count: 0 });
    expect(gw.gateway.services.fleet.has("adder")).toBe(true);
  });
});

describe("after a restart", () => {
  it("finds the discovered servers in the store and the next cycle takes them over", async () => {
    const first = memoryStorage();
    const yaml = discoveryYaml("", "authoritative");
    const before = await startDiscoveryGateway(yaml, { storage: first });
    before.source.report("adder", adder);
    await callJson(before.client as Client, "gateway_discover");
    await before.close();
    // A new process on the same durable store: a fresh event store, the same server records.
    const fresh = memoryStorage();
    const shared = {
      ...fresh,
      repositories: { ...fresh.repositories, serverConfigs: first.repositories.serverConfigs },
    };
    const after = await startDiscoveryGateway(yaml, { storage: shared });
    try {
      expect(after.gateway.services.fleet.get("adder")?.spec.source).toBe("discovery");
      after.source.report("adder", adder);
      const { json } = await callJson(after.client as Client, "gateway_discover");
      expect(json).toMatchObject({ registered_count: 0, quarantined_count: 0 });
      const { json: listing } = await callJson(after.client as Client, "gateway_sources");
      expect(listing.sources[0].mcp_servers_count).toBe(1);
      after.source.forget("adder");
      const gone = await callJson(after.client as Client, "gateway_discover");
      expect(gone.json.deregistered_count).toBe(1);
      expect(await shared.repositories.serverConfigs.get("adder")).toBeUndefined();
    } finally {
      await after.close();
    }
  });
});

describe("a rejection after a restart", () => {
  it("stays in force: the rejected definition is ignored, a changed one is held again", async () => {
    const first = memoryStorage();
    const yaml = discoveryYaml("", "authoritative");
    const before = await startDiscoveryGateway(yaml, { storage: first });
    before.source.report("bad", { command: "node server.js" });
    expect((await callJson(before.client as Client, "gateway_discover")).json.quarantined_count).toBe(1);
    const reject = await before.app.inject({ method: "POST", url: "/api/discovery/reject/bad" });
    expect(reject.json()).toEqual({ rejected: true, mcp_server: "bad" });
    await before.close();
    // A new process on the same durable store: the rejection is read before the first cycle.
    const fresh = memoryStorage();
    const shared = {
      ...fresh,
      repositories: { ...fresh.repositories, discoveryRejections: first.repositories.discoveryRejections },
    };
    const after = await startDiscoveryGateway(yaml, { storage: shared });
    try {
      after.source.report("bad", { command: "node server.js" });
      expect((await callJson(after.client as Client, "gateway_discover")).json.quarantined_count).toBe(0);
      after.source.report("bad", { command: "node other.js" });
      expect((await callJson(after.client as Client, "gateway_discover")).json.quarantined_count).toBe(1);
    } finally {
      await after.close();
    }
  });
});

describe("discovery with auto-registration off, additive", () => {
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    gw = await startDiscoveryGateway(discoveryYaml("  auto_register: false", "additive"));
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("holds a new server in pending, where approve does not act", async () => {
    gw.source.report("adder", adder);
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json).toMatchObject({ discovered_count: 1, registered_count: 0, quarantined_count: 0 });
    const tool = await callJson(gw.client as Client, "gateway_discovered");
    expect(tool.json.pending).toEqual([
      {
        name: "adder",
        source: "filesystem",
        mode: "additive",
        discovered_at: expect.stringMatching(/^\d{4}-/),
        fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      },
    ]);
    const rest = (await gw.app.inject({ method: "GET", url: "/api/discovery/pending" })).json();
    expect(rest.pending).toEqual([
      {
        name: "adder",
        source_type: "filesystem",
        mode: "additive",
        connection_info: { file: "servers.d/adder.yaml" },
        fingerprint: tool.json.pending[0].fingerprint,
        ttl_seconds: expect.any(Number),
      },
    ]);
    expect(rest.pending[0].ttl_seconds).toBeGreaterThan(0);
    const approve = await gw.app.inject({ method: "POST", url: "/api/discovery/approve/adder" });
    expect(approve.statusCode).toBe(200);
    expect(approve.json()).toMatchObject({
      approved: false,
      mcp_server: "adder",
      error: expect.stringMatching(/pending/),
    });
    expect(gw.gateway.services.fleet.has("adder")).toBe(false);
  });

  it("moves a pending server seen again unchanged to quarantine; approved, it starts and answers", async () => {
    await callJson(gw.client as Client, "gateway_discover");
    expect((await callJson(gw.client as Client, "gateway_discovered")).json.pending).toEqual([]);
    const listed = await callJson(gw.client as Client, "gateway_quarantine");
    expect(listed.json.quarantined.adder.reason).toMatch(/^awaiting_approval/);
    const approve = await gw.app.inject({ method: "POST", url: "/api/discovery/approve/adder" });
    expect(approve.json()).toEqual({ approved: true, mcp_server: "adder", status: "registered" });
    const call = await callJson(gw.client as Client, "gateway_call", {
      calls: [{ mcp_server: "adder", tool: "add", arguments: { a: 40, b: 2 } }],
    });
    expect(JSON.stringify(call.json.results[0].result)).toContain("42");
  });

  it("keeps a registered server the additive source no longer reports", async () => {
    gw.source.forget("adder");
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.deregistered_count).toBe(0);
    expect(gw.gateway.services.fleet.has("adder")).toBe(true);
  });
});

describe("discovery source management over REST", () => {
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    gw = await startDiscoveryGateway(discoveryYaml("", "additive"));
    gw.source.report("adder", adder);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const preview = (response: { headers: Record<string, unknown> }) => response.headers["x-gateway-preview"];

  it("lists the configured source under its type, with last_discovery null until a cycle completes", async () => {
    const before = (await gw.app.inject({ method: "GET", url: "/api/discovery/sources" })).json();
    expect(before.sources).toEqual([
      {
        id: "filesystem",
        source_type: "filesystem",
        mode: "additive",
        is_healthy: true,
        is_enabled: true,
        last_discovery: null,
        mcp_servers_count: 0,
        error_message: null,
      },
    ]);
    const scan = await gw.app.inject({ method: "POST", url: "/api/discovery/sources/filesystem/scan" });
    expect(scan.statusCode).toBe(200);
    expect(preview(scan)).toBe("discovery-source-management");
    expect(scan.json()).toEqual({ source_id: "filesystem", scan_triggered: true, mcp_servers_found: 1 });
    const after = (await gw.app.inject({ method: "GET", url: "/api/discovery/sources" })).json();
    expect(after.sources[0]).toMatchObject({
      last_discovery: expect.stringMatching(/^\d{4}-/),
      mcp_servers_count: 1,
    });
  });

  it("carries the preview header on a body refused before the route runs", async () => {
    for (const method of ["POST", "PUT"] as const) {
      const response = await gw.app.inject({
        method,
        url: method === "POST" ? "/api/discovery/sources" : "/api/discovery/sources/filesystem",
        headers: { "content-type": "application/json" },
        payload: "[1]",
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: "invalid_body",
        detail: "request body must be a JSON object",
      });
      expect(preview(response)).toBe("discovery-source-management");
    }
  });

  it("answers 400 invalid_mode for a mode other than additive or authoritative, with the preview header", async () => {
    const response = await gw.app.inject({
      method: "POST",
      url: "/api/discovery/sources",
      payload: { source_type: "docker", mode: "exclusive" },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: "invalid_mode" });
    expect(preview(response)).toBe("discovery-source-management");
    const put = await gw.app.inject({
      method: "PUT",
      url: "/api/discovery/sources/filesystem",
      payload: { mode: "sometimes" },
    });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toMatchObject({ error: "invalid_mode" });
    // The mode rule answers first, even when the type and other fields are wrong too.
    const both = await gw.app.inject({
      method: "POST",
      url: "/api/discovery/sources",
      payload: { source_type: "ftp", mode: "exclusive", enabled: "yes" },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ error: "invalid_mode" });
  });

  it("keeps a source registered through POST for the per-source routes, unlisted and never run", async () => {
    const created = await gw.app.inject({
      method: "POST",
      url: "/api/discovery/sources",
      payload: { source_type: "docker", mode: "additive", config: { socket_path: "/var/run/docker.sock" } },
    });
    expect(created.statusCode).toBe(201);
    expect(preview(created)).toBe("discovery-source-management");
    const { source_id, registered } = created.json();
    expect(registered).toBe(true);
    const listed = (await gw.app.inject({ method: "GET", url: "/api/discovery/sources" })).json();
    expect(listed.sources.map((s: { id: string }) => s.id)).toEqual(["filesystem"]);
    const scan = await gw.app.inject({ method: "POST", url: `/api/discovery/sources/${source_id}/scan` });
    expect(scan.json()).toEqual({ source_id, scan_triggered: false, mcp_servers_found: 0 });
    const update = await gw.app.inject({
      method: "PUT",
      url: `/api/discovery/sources/${source_id}`,
      payload: { mode: "authoritative" },
    });
    expect(update.json()).toEqual({ source_id, updated: true });
    expect(preview(update)).toBe("discovery-source-management");
    const enable = await gw.app.inject({
      method: "PUT",
      url: `/api/discovery/sources/${source_id}/enable`,
      payload: { enabled: false },
    });
    expect(enable.json()).toEqual({ source_id, enabled: false });
    expect(preview(enable)).toBe("discovery-source-management");
    const removed = await gw.app.inject({ method: "DELETE", url: `/api/discovery/sources/${source_id}` });
    expect(removed.json()).toEqual({ source_id, deregistered: true });
    expect(preview(removed)).toBe("discovery-source-management");
    const gone = await gw.app.inject({ method: "DELETE", url: `/api/discovery/sources/${source_id}` });
    expect(gone.statusCode).toBe(404);
  });

  it("answers 400 missing_fields when source_type or mode is absent", async () => {
    const response = await gw.app.inject({
      method: "POST",
      url: "/api/discovery/sources",
      payload: { mode: "additive" },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: "missing_fields" });
  });

  it("skips a disabled source in the cycle, and scans it again once enabled", async () => {
    await gw.app.inject({
      method: "PUT",
      url: "/api/discovery/sources/filesystem/enable",
      payload: { enabled: false },
    });
    const scans = gw.source.scans;
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.source_results).toEqual({});
    expect(gw.source.scans).toBe(scans);
    await gw.app.inject({
      method: "PUT",
      url: "/api/discovery/sources/filesystem/enable",
      payload: { enabled: true },
    });
    await callJson(gw.client as Client, "gateway_discover");
    expect(gw.source.scans).toBe(scans + 1);
  });
});

describe("the discovery cycle as background work", () => {
  it("runs a first cycle when the gateway starts its background work", async () => {
    const gw = await startDiscoveryGateway(discoveryYaml("", "additive"));
    try {
      gw.source.report("adder", adder);
      gw.gateway.startBackground();
      await waitFor(() => gw.gateway.services.fleet.has("adder"));
      expect(gw.gateway.services.fleet.get("adder")?.spec.source).toBe("discovery");
    } finally {
      await gw.close();
    }
  });
});

describe("discovery turned off", () => {
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    gw = await startDiscoveryGateway("mcp_servers: {}\n");
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("answers gateway_discover with {error} and lists nothing", async () => {
    const { json, isError } = await callJson(gw.client as Client, "gateway_discover");
    expect(isError).toBe(false);
    expect(json).toEqual({
      error: "discovery is not configured",
      error_type: "NotConfiguredError",
      details: { feature: "discovery" },
    });
    expect((await callJson(gw.client as Client, "gateway_sources")).json).toEqual({ sources: [] });
    expect((await callJson(gw.client as Client, "gateway_discovered")).json).toEqual({ pending: [] });
    expect((await callJson(gw.client as Client, "gateway_quarantine")).json).toEqual({ quarantined: {} });
    expect(gw.source.scans).toBe(0);
  });
});

describe("discovery permissions with authentication on", () => {
  let gw: DiscoveryGateway;
  let viewer: string;
  let operator: string;

  beforeAll(async () => {
    gw = await startDiscoveryGateway(
      `
auth:
  enabled: true
  rate_limit: {max_attempts: 100000}
  role_assignments:
    - {principal: vera, role: viewer}
    - {principal: olga, role: provider-admin}
${discoveryYaml("  auto_register: false", "additive")}`,
      { connect: false },
    );
    viewer = await createApiKey(gw, "vera");
    operator = await createApiKey(gw, "olga");
    gw.source.report("adder", adder);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const as = (key: string, method: "GET" | "POST", url: string) =>
    gw.app.inject({ method, url, headers: { "x-api-key": key } });

  it("lets a viewer read sources, pending and quarantine, and refuses it scans and approvals", async () => {
    expect((await as(viewer, "GET", "/api/discovery/sources")).statusCode).toBe(200);
    expect((await as(viewer, "GET", "/api/discovery/pending")).statusCode).toBe(200);
    expect((await as(viewer, "GET", "/api/discovery/quarantined")).statusCode).toBe(200);
    expect((await as(viewer, "POST", "/api/discovery/sources/filesystem/scan")).statusCode).toBe(403);
    expect((await as(viewer, "POST", "/api/discovery/approve/adder")).statusCode).toBe(403);
    expect((await as(viewer, "POST", "/api/discovery/reject/adder")).statusCode).toBe(403);
  });

  it("lets a provider-admin scan and approve", async () => {
    expect((await as(operator, "POST", "/api/discovery/sources/filesystem/scan")).json()).toMatchObject({
      scan_triggered: true,
      mcp_servers_found: 1,
    });
    await as(operator, "POST", "/api/discovery/sources/filesystem/scan");
    const approve = await as(operator, "POST", "/api/discovery/approve/adder");
    expect(approve.json()).toEqual({ approved: true, mcp_server: "adder", status: "registered" });
  });
});

describe("discovery from a directory of definition files (the filesystem adapter)", () => {
  let dir: string;
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-discovery-"));
    gw = await startDiscoveryGateway(
      `
discovery:
  enabled: true
  refresh_interval_s: 3600
  sources:
    - {type: filesystem, mode: authoritative, path: ${JSON.stringify(dir)}}
`,
      { realAdapters: true },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("registers a server from a file, serves its tools, and deregisters it when the file goes", async () => {
    const file = join(dir, "adder.yaml");
    await writeFile(file, `mcp_servers:\n  adder:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\n`);
    const found = await gw.app.inject({ method: "POST", url: "/api/discovery/sources/filesystem/scan" });
    expect(found.json()).toEqual({ source_id: "filesystem", scan_triggered: true, mcp_servers_found: 1 });
    const call = await callJson(gw.client as Client, "gateway_call", {
      calls: [{ mcp_server: "adder", tool: "add", arguments: { a: 1, b: 1 } }],
    });
    expect(JSON.stringify(call.json.results[0].result)).toContain("2");
    const { json: pending } = await callJson(gw.client as Client, "gateway_quarantine");
    expect(pending.quarantined).toEqual({});
    await unlink(file);
    const { json } = await callJson(gw.client as Client, "gateway_discover");
    expect(json.deregistered_count).toBe(1);
    expect(gw.gateway.services.fleet.has("adder")).toBe(false);
  });

  it("reports a missing directory on the source", async () => {
    await rm(dir, { recursive: true, force: true });
    await callJson(gw.client as Client, "gateway_discover");
    const { json } = await callJson(gw.client as Client, "gateway_sources");
    expect(json.sources[0]).toMatchObject({
      id: "filesystem",
      is_healthy: false,
      error_message: expect.any(String),
    });
  });
});

describe("a discovered server that names a group", () => {
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    gw = await startDiscoveryGateway(`
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  pool:
    mode: group
    members: [{id: math}]
${discoveryYaml("", "authoritative")}`);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("joins the group when registered and leaves it when deregistered", async () => {
    gw.source.servers = [
      { name: "adder", definition: adder, connectionInfo: { file: "adder.yaml" }, group: "pool" },
    ];
    await callJson(gw.client as Client, "gateway_discover");
    expect(gw.gateway.services.groups.memberIds("pool")).toEqual(["math", "adder"]);
    gw.source.forget("adder");
    await callJson(gw.client as Client, "gateway_discover");
    expect(gw.gateway.services.groups.memberIds("pool")).toEqual(["math"]);
    expect(gw.gateway.services.fleet.has("adder")).toBe(false);
  });
});

describe("a source's change feed", () => {
  it("brings an early cycle: a file written to the watched directory is registered without waiting for the interval", async () => {
    const dir = await mkdtemp(join(tmpdir(), "airlock-discovery-watch-"));
    const gw = await startDiscoveryGateway(
      `
discovery:
  enabled: true
  refresh_interval_s: 3600
  sources:
    - {type: filesystem, mode: additive, path: ${JSON.stringify(dir)}}
`,
      { realAdapters: true },
    );
    try {
      gw.gateway.startBackground();
      await waitFor(async () => {
        const { json } = await callJson(gw.client as Client, "gateway_sources");
        return json.sources[0]?.last_discovery !== null;
      });
      // The watcher may still be reading the directory when the first cycle ends, and misses what
      // changes meanwhile: the file is written again every 3 s (longer than the debounce)
      // until the change is seen. The refresh interval (an hour) never fires in the test.
      const definition = `mcp_servers:\n  adder:\n    command: [node, ${JSON.stringify(ARITHMETIC)}]\n`;
      let lastWrite = 0;
      await waitFor(async () => {
        if (gw.gateway.services.fleet.has("adder")) return true;
        if (Date.now() - lastWrite > 3_000) {
          lastWrite = Date.now();
          await writeFile(join(dir, "adder.yaml"), `${definition}# ${lastWrite}\n`);
        }
        return false;
      }, 15_000);
      expect(gw.gateway.services.fleet.get("adder")?.spec.source).toBe("discovery");
    } finally {
      await gw.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("discovery from a Kubernetes API through a kubeconfig file", () => {
  let api: KubernetesApiFake;
  let remote: HttpMcpServer;
  let dir: string;
  let gw: DiscoveryGateway;

  beforeAll(async () => {
    api = await startKubernetesApiFake({ allowedNamespaces: ["mcp"] });
    remote = await startHttpMcpServer();
    dir = await mkdtemp(join(tmpdir(), "airlock-kube-"));
    const kubeconfig = join(dir, "config");
    await writeFile(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        `clusters: [{name: fake, cluster: {server: ${JSON.stringify(api.url)}, insecure-skip-tls-verify: true}}]`,
        `users: [{name: discovery, user: {token: ${JSON.stringify(api.token)}}}]`,
        "contexts: [{name: fake, context: {cluster: fake, user: discovery}}]",
        "current-context: fake",
      ].join("\n"),
    );
    gw = await startDiscoveryGateway(
      `
discovery:
  enabled: true
  refresh_interval_s: 3600
  sources:
    - {type: kubernetes, mode: authoritative, namespaces: [mcp], kubeconfig: ${JSON.stringify(kubeconfig)}}
`,
      { realAdapters: true },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await remote?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("registers an annotated pod, calls its tool, and removes it when the pod is gone", async () => {
    const { port } = new URL(remote.url);
    api.addPod({
      namespace: "mcp",
      name: "shouter-7f9c",
      podIP: "127.0.0.1",
      annotations: {
        "airlock.dev/enabled": "true",
        "airlock.dev/name": "shouter",
        "airlock.dev/port": port,
        "airlock.dev/path": "/mcp",
      },
    });
    const { json: cycle } = await callJson(gw.client as Client, "gateway_discover");
    expect(cycle, JSON.stringify(cycle)).toMatchObject({ registered_count: 1 });
    const call = await callJson(gw.client as Client, "gateway_call", {
      calls: [{ mcp_server: "shouter", tool: "shout", arguments: { text: "hi" } }],
    });
    expect(JSON.stringify(call.json.results[0].result)).toContain("HI");
    api.deletePod("mcp", "shouter-7f9c");
    const { json: after } = await callJson(gw.client as Client, "gateway_discover");
    expect(after.deregistered_count).toBe(1);
    expect(gw.gateway.services.fleet.has("shouter")).toBe(false);
  });
});

await describePostgres("discovery with two replicas on PostgreSQL", () => {
  const stores: SqlStore<unknown>[] = [];
  const replicas: DiscoveryGateway[] = [];

  beforeAll(async () => {
    const first = await freshPostgres();
    stores.push(first);
    stores.push(
      await openPostgres({
        connection: { connectionString: DATABASE_URL },
        schema: first.schema,
        maxConnections: 4,
      }),
    );
    const yaml = `
persistence:
  backend: postgresql
  postgresql: {host: 127.0.0.1}
coordination: {}
rate_limit: {rps: 1000, burst: 1000}
${discoveryYaml("", "authoritative")}`;
    for (const sql of stores) {
      const replica = await startDiscoveryGateway(yaml, { storage: sharedPostgresStorage(sql) });
      replica.gateway.startBackground();
      replicas.push(replica);
      // The first replica takes the lease before the second one starts.
      if (replicas.length === 1) await waitFor(() => replica.gateway.services.instance.manages_fleet);
    }
  });
  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    // The first store drops the schema: it closes last.
    for (const store of stores.splice(0).reverse()) await store.close();
  });

  it("runs discovery on the fleet manager only; a follower's scan is handed to it, and the follower takes the server in", async () => {
    const [leader, follower] = replicas as [DiscoveryGateway, DiscoveryGateway];
    expect(follower.gateway.services.instance.manages_fleet).toBe(false);
    leader.source.report("adder", adder);
    follower.source.report("adder", adder);
    const scan = await follower.app.inject({ method: "POST", url: "/api/discovery/sources/filesystem/scan" });
    expect(scan.json()).toEqual({ source_id: "filesystem", scan_triggered: true, mcp_servers_found: 1 });
    expect(follower.source.scans).toBe(0);
    await waitFor(() => follower.gateway.services.fleet.has("adder"));
    expect(follower.gateway.services.fleet.get("adder")?.spec.source).toBe("discovery");
    const listed = await follower.app.inject({ method: "GET", url: "/api/discovery/sources" });
    expect(listed.json().sources[0]).toMatchObject({ id: "filesystem", mcp_servers_count: 1 });
    const call = await callJson(follower.client as Client, "gateway_call", {
      calls: [{ mcp_server: "adder", tool: "add", arguments: { a: 20, b: 22 } }],
    });
    expect(JSON.stringify(call.json.results[0].result)).toContain("42");
  });
});
