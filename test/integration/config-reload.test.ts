import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import type { Gateway } from "../../src/composition/create-gateway.js";
import { onReloadSignal } from "../../src/composition/signals.js";
import type { DomainEvent } from "../../src/domain/events.js";
import { createApiKey } from "../support/api-keys.js";
import {
  ARITHMETIC,
  CONTROLLABLE,
  FAILS_TO_START,
  type FileGateway,
  startFileGateway,
  TEXT,
  waitFor,
} from "../support/gateway.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * Configuration reload (spec 2 §3) through its real triggers: `POST /api/config/reload`,
 * `gateway_reload_config` over MCP HTTP, SIGHUP, the file watcher and polling, against a gateway
 * built from a temporary file with real subprocess servers.
 */

const server = (path: string, extra = "") => `    command: [node, ${JSON.stringify(path)}]\n${extra}`;

function yaml(servers: Record<string, string>, top = "config_reload:\n  enabled: false\n"): string {
  const entries = Object.entries(servers)
    .map(([id, body]) => `  ${id}:\n${body}`)
    .join("\n");
  return `mcp_servers:\n${entries}\nrate_limit:\n  rps: 1000\n  burst: 1000\n${top}`;
}

const INITIAL = yaml({ math: server(ARITHMETIC), text: server(TEXT) });
/**
 * Room for 20 calls at once on one server: the tests that overlap calls with a reload assert that
 * the reload refuses none, so the per-server budget (10 by default, refusing at once) must not.
 */
const ROOMY = "config_reload:\n  enabled: false\nexecution:\n  default_mcp_server_concurrency: 50\n";

interface Running extends FileGateway {
  baseUrl: string;
  /** Connected unless the gateway was started with authentication on. */
  client: Client;
  events: DomainEvent[];
}

let running: Running | null = null;

/** A gateway started from `text` in a file, `MCP_CONFIG` unset, running its background work. */
async function start(text = INITIAL, options: { connect?: boolean } = {}): Promise<Running> {
  const started = await startFileGateway(text, { mcpConfig: null });
  const events: DomainEvent[] = [];
  started.gateway.services.bus.subscribe((event) => {
    events.push(event);
  });
  started.gateway.startBackground();
  const baseUrl = await started.app.listen({ host: "127.0.0.1", port: 0 });
  // Without a client, closing one is a no-op.
  const client =
    options.connect === false ? new Client({ name: "unused", version: "0" }) : await connectHttp(baseUrl);
  running = { ...started, baseUrl, client, events };
  return running;
}

afterEach(async () => {
  if (!running) return;
  await running.client.close();
  await running.close();
  running = null;
});

const stateOf = (gateway: Gateway, id: string) => gateway.services.fleet.get(id)?.lifecycle.state;

async function reloadRest(app: FastifyInstance, payload: unknown = {}) {
  return app.inject({ method: "POST", url: "/api/config/reload", payload: payload as object });
}

describe("configuration reload", () => {
  it("POST /config/reload with an unchanged file leaves every server untouched", async () => {
    const { gateway, app, path, events } = await start();
    await callJson(running!.client, "gateway_start", { mcp_server: "math" });
    const response = await reloadRest(app);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      status: "reloaded",
      result: {
        success: true,
        config_path: path,
        mcp_servers_added: [],
        mcp_servers_removed: [],
        mcp_servers_updated: [],
      },
    });
    expect(body.result.mcp_servers_unchanged.sort()).toEqual(["math", "text"]);
    expect(body.result.duration_ms).toEqual(expect.any(Number));
    expect(stateOf(gateway, "math")).toBe("ready");
    const requested = events.find((event) => event.type === "ConfigurationReloadRequested");
    expect(requested).toMatchObject({ graceful: true });
    expect(events.some((event) => event.type === "ConfigurationReloaded")).toBe(true);
  });

  it("gateway_reload_config adds cold, removes, and replaces a modified server with a cold one", async () => {
    const { gateway, client, path, events } = await start();
    await callJson(client, "gateway_start", { mcp_server: "math" });
    await callJson(client, "gateway_start", { mcp_server: "text" });
    writeFileSync(
      path,
      yaml({ math: server(ARITHMETIC, "    idle_ttl_s: 120\n"), ctl: server(CONTROLLABLE) }),
    );
    const { isError, json } = await callJson(client, "gateway_reload_config", { graceful: false });
    expect(isError).toBe(false);
    expect(json).toMatchObject({
      status: "success",
      mcp_servers_added: ["ctl"],
      mcp_servers_removed: ["text"],
      mcp_servers_updated: ["math"],
      mcp_servers_unchanged: [],
    });
    expect(json.message).toContain("1 added");
    expect(gateway.services.fleet.has("text")).toBe(false);
    expect(stateOf(gateway, "ctl")).toBe("cold");
    expect(stateOf(gateway, "math")).toBe("cold");
    expect(gateway.services.fleet.get("math")?.spec.idle_ttl_s).toBe(120);
    expect(events.find((event) => event.type === "ConfigurationReloadRequested")).toMatchObject({
      graceful: false,
    });
    expect(events.find((event) => event.type === "ConfigurationReloaded")).toMatchObject({
      mcp_servers_added: ["ctl"],
      mcp_servers_removed: ["text"],
      mcp_servers_updated: ["math"],
      reload_duration_ms: expect.any(Number),
    });
    const list = await callJson(client, "gateway_list");
    expect(
      list.json.mcp_servers
        .map((s: { mcp_server_id?: string; id?: string }) => s.mcp_server_id ?? s.id)
        .sort(),
    ).toEqual(["ctl", "math"]);
  });

  it("refuses an invalid file, naming the field, and changes nothing", async () => {
    const { gateway, app, path, events } = await start();
    writeFileSync(path, yaml({ math: server(ARITHMETIC, "    idle_ttl_s: -5\n") }));
    const response = await reloadRest(app);
    expect(response.statusCode).toBe(422);
    const message: string = response.json().error.message;
    expect(message).toMatch(/^Configuration reload failed: /);
    expect(message).toContain("idle_ttl_s");
    expect(gateway.services.fleet.has("text")).toBe(true);
    expect(gateway.services.fleet.get("math")?.spec.idle_ttl_s).toBe(300);
    expect(events.some((event) => event.type === "ConfigurationReloadFailed")).toBe(true);
    expect(events.some((event) => event.type === "ConfigurationReloaded")).toBe(false);
  });

  it("refuses a changed tool_access.mode over MCP with the failure payload", async () => {
    const { gateway, client, path } = await start();
    writeFileSync(
      path,
      yaml({ other: server(TEXT) }, "config_reload:\n  enabled: false\ntool_access:\n  mode: front_door\n"),
    );
    const { json } = await callJson(client, "gateway_reload_config", {});
    expect(json.error).toMatch(/^Configuration reload failed: tool_access\.mode/);
    expect(gateway.services.fleet.has("other")).toBe(false);
    expect(gateway.services.fleet.has("text")).toBe(true);
  });

  it("answers 422 to a body naming config_path and reads nothing", async () => {
    const { app, events } = await start();
    const response = await reloadRest(app, { config_path: "/elsewhere.yaml" });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.message).toContain("config_path");
    expect(events.some((event) => event.type === "ConfigurationReloadRequested")).toBe(false);
  });

  it("refuses config_path on gateway_reload_config too, and reads nothing", async () => {
    const { client, events } = await start();
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "gateway_reload_config");
    expect(Object.keys(listed?.inputSchema.properties ?? {})).toEqual(["graceful"]);
    const { isError, text } = await callJson(client, "gateway_reload_config", { config_path: "/etc/passwd" });
    expect(isError).toBe(true);
    expect(text).toContain("config_path");
    expect(events.some((event) => event.type === "ConfigurationReloadRequested")).toBe(false);
  });

  it("serves calls to kept servers while a reload runs: none fails", async () => {
    const { client, path } = await start(yaml({ math: server(ARITHMETIC), text: server(TEXT) }, ROOMY));
    await callJson(client, "gateway_start", { mcp_server: "math" });
    writeFileSync(path, yaml({ math: server(ARITHMETIC), ctl: server(CONTROLLABLE) }, ROOMY));
    const calls = Array.from({ length: 20 }, (_, index) =>
      callJson(client, "gateway_call", {
        calls: [{ mcp_server: "math", tool: "add", arguments: { a: index, b: 1 } }],
      }),
    );
    const reload = callJson(client, "gateway_reload_config", {});
    const results = await Promise.all(calls);
    expect((await reload).json).toMatchObject({ status: "success", mcp_servers_removed: ["text"] });
    for (const [index, result] of results.entries()) {
      expect(result.json, JSON.stringify(result.json.results[0])).toMatchObject({
        success: true,
        succeeded: 1,
      });
      expect(result.json.results[0].result.content[0].text).toContain(String(index + 1));
    }
  });

  it("serves calls while a reload is refused: none fails and the running server stays", async () => {
    const { client, path, gateway } = await start(
      yaml({ math: server(ARITHMETIC), text: server(TEXT) }, ROOMY),
    );
    await callJson(client, "gateway_start", { mcp_server: "math" });
    const running = gateway.services.fleet.get("math")?.connection;
    writeFileSync(path, yaml({ math: server(ARITHMETIC, "    idle_ttl_s: -5\n") }, ROOMY));
    const calls = Array.from({ length: 20 }, (_, index) =>
      callJson(client, "gateway_call", {
        calls: [{ mcp_server: "math", tool: "add", arguments: { a: index, b: 1 } }],
      }),
    );
    const reload = callJson(client, "gateway_reload_config", {});
    const results = await Promise.all(calls);
    expect(String((await reload).json.error)).toMatch(/^Configuration reload failed: .*idle_ttl_s/);
    for (const [index, result] of results.entries()) {
      expect(result.json).toMatchObject({ success: true, succeeded: 1 });
      expect(result.json.results[0].result.content[0].text).toContain(String(index + 1));
    }
    expect(gateway.services.fleet.get("math")?.connection).toBe(running);
  });

  it("applies a tool access block without restarting the server", async () => {
    const { gateway, client, path } = await start();
    await callJson(client, "gateway_start", { mcp_server: "math" });
    writeFileSync(
      path,
      yaml({ math: server(ARITHMETIC, "    tools:\n      deny_list: [add]\n"), text: server(TEXT) }),
    );
    const { json } = await callJson(client, "gateway_reload_config", {});
    expect(json.mcp_servers_unchanged.sort()).toEqual(["math", "text"]);
    expect(stateOf(gateway, "math")).toBe("ready");
    const call = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 1 } }],
    });
    expect(call.json.results[0]).toMatchObject({ success: false });
  });

  it("reloads on SIGHUP", async () => {
    const { gateway, path } = await start();
    const dispose = onReloadSignal(() =>
      gateway.reloader!.reload({ graceful: true, requestedBy: "system:sighup" }),
    );
    try {
      writeFileSync(path, yaml({ math: server(ARITHMETIC), text: server(TEXT), ctl: server(CONTROLLABLE) }));
      process.emit("SIGHUP");
      await waitFor(() => gateway.services.fleet.has("ctl"));
      expect(stateOf(gateway, "ctl")).toBe("cold");
    } finally {
      dispose();
    }
  });

  it("reloads about a second after the file changes when the watcher is on", async () => {
    const top = "config_reload:\n  enabled: true\n  use_watchdog: true\n";
    const { gateway, path } = await start(yaml({ math: server(ARITHMETIC) }, top));
    // The watcher reads the starting text first; give it a moment to be ready.
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(path, yaml({ math: server(ARITHMETIC), ctl: server(CONTROLLABLE) }, top));
    await waitFor(() => gateway.services.fleet.has("ctl"), 8_000);
  });

  it("polls the file every interval_s when the watcher is off", async () => {
    const top = "config_reload:\n  enabled: true\n  use_watchdog: false\n  interval_s: 1\n";
    const { gateway, path } = await start(yaml({ math: server(ARITHMETIC) }, top));
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(path, yaml({ ctl: server(CONTROLLABLE) }, top));
    await waitFor(() => gateway.services.fleet.has("ctl") && !gateway.services.fleet.has("math"), 6_000);
  });
});

const RICH = resolve("test/fixtures/servers/rich.mjs");

/** Spec 2 §3: the sections a reload applies besides servers and policies, without a restart. */
describe("live-applied sections", () => {
  it("applies execution limits to the next calls, and still reports sections that need a restart", async () => {
    const { gateway, app, client, path } = await start();
    const ok = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } }],
    });
    expect(ok.json.results[0]).toMatchObject({ success: true });
    const top =
      "config_reload:\n  enabled: false\nexecution:\n  max_response_bytes: 10\n  default_mcp_server_concurrency: 3\nlogging:\n  level: DEBUG\n";
    writeFileSync(path, yaml({ math: server(ARITHMETIC), text: server(TEXT) }, top));
    const response = await reloadRest(app);
    expect(response.statusCode).toBe(200);
    expect(response.json().result.restart_required).toEqual(["logging"]);
    expect(gateway.services.fleet.get("math")?.budget.limit).toBe(3);
    const refused = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "math", tool: "add", arguments: { a: 1, b: 2 } }],
    });
    expect(refused.json.results[0]).toMatchObject({ success: false });
    expect(JSON.stringify(refused.json.results[0])).toContain("exceeds the limit of 10 bytes");
    // The kept server was not restarted to apply it.
    expect(stateOf(gateway, "math")).toBe("ready");
  });

  it("applies tool_access.required_catalogue on the front door: readiness waits for a newly required server", async () => {
    const frontDoor = (catalogue: string) =>
      `tool_access:\n  mode: front_door\n${catalogue}mcp_servers:\n  math:\n${server(ARITHMETIC)}  broken:\n${server(FAILS_TO_START)}config_reload:\n  enabled: false\n`;
    const { app, path } = await start(frontDoor(""));
    expect((await app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);

    writeFileSync(path, frontDoor("  required_catalogue:\n    servers: [broken]\n    retry_for_s: 600\n"));
    const response = await reloadRest(app);
    expect(response.statusCode).toBe(200);
    expect(response.json().result.restart_required).toBeUndefined();
    const waiting = await app.inject({ method: "GET", url: "/health/ready" });
    expect(waiting.statusCode).toBe(503);
    expect(waiting.json().required_catalogue).toMatchObject({
      status: "waiting",
      missing_mcp_servers: ["broken"],
    });

    writeFileSync(path, frontDoor(""));
    expect((await reloadRest(app)).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);
  });

  it("applies ui_resources on the front door: a tenant's allowlist shows its UI resource at once", async () => {
    const frontDoor = (ui: string) =>
      `tool_access:\n  mode: front_door\nauth:\n  enabled: true\n  role_assignments:\n    - {principal: ada, role: admin}\n${ui}mcp_servers:\n  rich:\n${server(RICH)}config_reload:\n  enabled: false\n`;
    const { gateway, app, path, baseUrl } = await start(frontDoor(""), { connect: false });
    const key = await createApiKey({ gateway }, "ada", { tenant: "t1" });
    const client = new Client({ name: "tenant-t1", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    try {
      await waitFor(async () =>
        (await client.listResources()).resources.some((r) => r.uri === "rich://readme"),
      );
      const uris = async () => (await client.listResources()).resources.map((r) => r.uri);
      expect(await uris()).not.toContain("ui://rich/widget");

      writeFileSync(path, frontDoor("ui_resources:\n  tenants:\n    t1:\n      allowlist: [ui://rich/]\n"));
      const response = await reloadRest(app, {});
      // With authentication on the reload needs a key too.
      expect(response.statusCode).toBe(401);
      const reloaded = await app.inject({
        method: "POST",
        url: "/api/config/reload",
        headers: { "x-api-key": key },
        payload: {},
      });
      expect(reloaded.statusCode).toBe(200);
      expect(reloaded.json().result.restart_required).toBeUndefined();
      expect(await uris()).toContain("ui://rich/widget");
    } finally {
      await client.close();
    }
  });
});
