import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsEndpointGuard } from "../../src/adapters/net/dns-endpoint-guard.js";
import { createGateway, type Gateway } from "../../src/composition/create-gateway.js";
import { memoryStorage } from "../../src/composition/open-storage.js";
import { parseConfig } from "../../src/config/load.js";
import { ARITHMETIC, fleetYaml, startTestGateway } from "../support/gateway.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/http-mcp-server.js";
import { callJson, connectHttp } from "../support/mcp-client.js";
import { type McpRegistryFake, officialEntry, startMcpRegistry } from "../support/mcp-registry.js";

/**
 * gateway_load / gateway_list / gateway_status / gateway_unload through the gateway's MCP endpoint,
 * with a registry on loopback serving the real API's documents. Loadable servers are a streamable
 * HTTP server on loopback (a remote) and the installed `@modelcontextprotocol/server-everything`
 * package run by npx offline: nothing reaches the internet.
 */

let registry: McpRegistryFake;
let remote: HttpMcpServer;
let gateway: Gateway;
let app: FastifyInstance;
let client: Client;

const NAMESPACE = "io.github.airlock-test";

beforeAll(async () => {
  remote = await startHttpMcpServer();
  registry = await startMcpRegistry([
    officialEntry({
      name: `${NAMESPACE}/shouter`,
      title: "Shouter",
      description: "Upper-cases text",
      version: "1.0.0",
      remotes: [{ type: "streamable-http", url: remote.url }],
    }),
    officialEntry({
      name: `${NAMESPACE}/everything`,
      description: "Exercises every MCP feature",
      version: "2026.8.31",
      packages: [
        {
          registryType: "npm",
          registryBaseUrl: "https://registry.npmjs.org",
          identifier: "@modelcontextprotocol/server-everything",
          version: "2026.8.31",
          transport: { type: "stdio" },
          environmentVariables: [
            // The installed copy is used: npx never fetches.
            { name: "npm_config_offline", default: "true" },
            {
              name: "EVERYTHING_TOKEN",
              description: "Token of the service",
              isRequired: true,
              isSecret: true,
            },
          ],
        },
      ],
    }),
    officialEntry({
      name: `${NAMESPACE}/needs-key`,
      description: "Needs a key",
      version: "0.3.0",
      packages: [
        {
          registryType: "npm",
          identifier: "@airlock-test/needs-key",
          version: "0.3.0",
          transport: { type: "stdio" },
          environmentVariables: [
            {
              name: "NEEDS_KEY_API_KEY",
              description: "Key of the service",
              isRequired: true,
              isSecret: true,
            },
          ],
        },
      ],
    }),
    // An entry of a registry that does not vouch for it: no official metadata.
    {
      server: {
        name: `${NAMESPACE}/unvouched`,
        description: "Unvouched shouter",
        version: "0.1.0",
        remotes: [{ type: "streamable-http", url: remote.url }],
      },
    },
    officialEntry(
      { name: `${NAMESPACE}/removed`, description: "Taken down", version: "1.0.0" },
      { status: "deleted" },
    ),
  ]);
  const { config, env } = parseConfig(
    `
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
hot_loading:
  registry:
    base_url: ${registry.url}
    timeout_s: 5
    max_retries: 1
  cache:
    ttl_s: 3600
    max_entries: 100
`,
    { env: { PATH: process.env.PATH } },
  );
  gateway = await createGateway({
    config,
    env,
    logger: pino({ level: "silent" }),
    instanceLabel: "hot-loading",
    storage: memoryStorage(),
    environment: { EVERYTHING_TOKEN: "token-value-123" },
  });
  // The loadable remote listens on loopback, which the SSRF policy refuses (and the configuration
  // cannot trust): the test trusts it on the gateway's own guard.
  trustLoopback(true);
  app = await gateway.http();
  client = await connectHttp(await app.listen({ host: "127.0.0.1", port: 0 }));
});

afterAll(async () => {
  await client?.close();
  await app?.close();
  await gateway?.shutdown();
  await registry?.close();
  await remote?.close();
});

function trustLoopback(trusted: boolean): void {
  (gateway.services.endpointGuard as DnsEndpointGuard).setTrustedNetworks(trusted ? ["127.0.0.1/32"] : []);
}

const runtimeIds = async () => {
  const { json } = await callJson(client, "gateway_list");
  return json.runtime_mcp_servers.map((s: { mcp_server: string }) => s.mcp_server);
};

describe("hot loading a remote server", () => {
  it("loads it by its short name, starts it and answers its tools", async () => {
    const { json, isError } = await callJson(client, "gateway_load", { name: "shouter" });
    expect(isError).toBe(false);
    expect(json).toEqual({
      status: "loaded",
      message: expect.stringContaining("remote:streamable-http"),
      mcp_server_id: "shouter",
      mcp_server_name: `${NAMESPACE}/shouter`,
      tools: ["shout"],
    });
  });

  it("serves its tools through gateway_call", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "shouter", tool: "shout", arguments: { text: "hello" } }],
    });
    expect(json.results[0]).toMatchObject({ success: true, result: { content: [{ text: "HELLO" }] } });
  });

  it("shows it in gateway_list: among runtime_mcp_servers and among mcp_servers", async () => {
    const { json } = await callJson(client, "gateway_list");
    expect(json.runtime_mcp_servers).toEqual([
      {
        mcp_server: "shouter",
        state: "ready",
        source: `registry:${NAMESPACE}/shouter@1.0.0`,
        verified: true,
        ephemeral: true,
        loaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        lifetime_seconds: expect.any(Number),
        dead: null,
      },
    ]);
    expect(json.mcp_servers.map((s: { mcp_server_id: string }) => s.mcp_server_id).sort()).toEqual([
      "math",
      "shouter",
    ]);
    const cold = await callJson(client, "gateway_list", { state_filter: "cold" });
    expect(cold.json.runtime_mcp_servers).toEqual([]);
  });

  it("counts it in gateway_status", async () => {
    const { json } = await callJson(client, "gateway_status");
    expect(json.runtime_mcp_servers).toEqual([
      expect.objectContaining({ mcp_server: "shouter", state: "ready" }),
    ]);
    expect(json.summary).toMatchObject({ runtime_mcp_servers: 1, runtime_healthy: 1, total_mcp_servers: 2 });
  });

  it("answers already_loaded the second time, from the cached registry answer", async () => {
    const before = registry.requests.length;
    const { json } = await callJson(client, "gateway_load", { name: `${NAMESPACE}/shouter` });
    expect(json).toMatchObject({ status: "already_loaded", mcp_server_id: "shouter" });
    const again = await callJson(client, "gateway_load", { name: "shouter" });
    expect(again.json.status).toBe("already_loaded");
    // The full name was a new search; the short name was answered from the cache.
    expect(registry.requests.length).toBe(before + 1);
  });

  it("does not unload a declared server", async () => {
    const { json } = await callJson(client, "gateway_unload", { mcp_server: "math" });
    expect(json).toEqual({
      status: "not_hot_loaded",
      mcp_server: "math",
      message: "MCP server 'math' is declared in the configuration file, not hot-loaded",
    });
    expect(gateway.services.fleet.has("math")).toBe(true);
  });

  it("unloads it: stopped, removed, gone from every list", async () => {
    const { json } = await callJson(client, "gateway_unload", { mcp_server: "shouter" });
    expect(json).toEqual({
      status: "unloaded",
      mcp_server: "shouter",
      message: expect.stringContaining("Unloaded 'shouter'"),
      lifetime_seconds: expect.any(Number),
    });
    expect(await runtimeIds()).toEqual([]);
    const call = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "shouter", tool: "shout", arguments: { text: "x" } }],
    });
    expect(call.text).toContain("McpServer 'shouter' not found");
    expect(gateway.services.fleet.has("shouter")).toBe(false);
  });

  it("refuses a remote on a refused address while the SSRF policy does not trust it", async () => {
    trustLoopback(false);
    try {
      const { json } = await callJson(client, "gateway_load", { name: "shouter" });
      expect(json).toEqual({
        status: "failed",
        message: `'${NAMESPACE}/shouter' was refused: endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)`,
        mcp_server_name: `${NAMESPACE}/shouter`,
      });
      expect(gateway.services.fleet.has("shouter")).toBe(false);
    } finally {
      trustLoopback(true);
    }
  });
});

describe("hot loading an npm package", () => {
  it("runs it with npx, passing its declared variables from the gateway's environment", async () => {
    const { json } = await callJson(client, "gateway_load", { name: "everything", deny_tools: ["echo"] });
    expect(json).toMatchObject({
      status: "loaded",
      mcp_server_id: "everything",
      warnings: ["passed from the gateway's environment: EVERYTHING_TOKEN"],
    });
    expect(json.tools.length).toBeGreaterThan(1);
    expect(json.tools).not.toContain("echo");
    const spec = gateway.services.fleet.require("everything").spec;
    expect(spec.env).toEqual({ npm_config_offline: "true", EVERYTHING_TOKEN: "token-value-123" });
  });

  it("applies deny_tools to its calls", async () => {
    const { json } = await callJson(client, "gateway_call", {
      calls: [{ mcp_server: "everything", tool: "echo", arguments: { message: "hi" } }],
    });
    expect(json.results[0]).toMatchObject({ success: false, error_type: "ToolAccessDeniedError" });
  });

  it("answers missing_secrets when a required secret is not in the gateway's environment", async () => {
    const { json } = await callJson(client, "gateway_load", { name: "needs-key" });
    expect(json).toEqual({
      status: "missing_secrets",
      message: expect.any(String),
      mcp_server_name: `${NAMESPACE}/needs-key`,
      missing: ["NEEDS_KEY_API_KEY"],
      instructions: expect.stringContaining("Set NEEDS_KEY_API_KEY in the gateway's environment"),
    });
    expect(await runtimeIds()).toEqual(["everything"]);
  });
});

describe("gateway_load's other answers", () => {
  it("answers not_found for an unknown name and for an entry the registry took down", async () => {
    for (const name of ["no-such-server", `${NAMESPACE}/removed`]) {
      const { json } = await callJson(client, "gateway_load", { name });
      expect(json).toEqual({ status: "not_found", message: expect.any(String), mcp_server_name: name });
    }
  });

  it("answers ambiguous with the matches for a partial name", async () => {
    const { json } = await callJson(client, "gateway_load", { name: "airlock-test" });
    expect(json.status).toBe("ambiguous");
    expect(json.matches.map((m: { name: string }) => m.name).sort()).toEqual([
      `${NAMESPACE}/everything`,
      `${NAMESPACE}/needs-key`,
      `${NAMESPACE}/shouter`,
      `${NAMESPACE}/unvouched`,
    ]);
  });

  it("answers unverified unless force_unverified, then loads with a warning", async () => {
    const refused = await callJson(client, "gateway_load", { name: "unvouched" });
    expect(refused.json).toMatchObject({ status: "unverified", mcp_server_name: `${NAMESPACE}/unvouched` });
    expect(await runtimeIds()).toEqual(["everything"]);
    const forced = await callJson(client, "gateway_load", { name: "unvouched", force_unverified: true });
    expect(forced.json).toMatchObject({
      status: "loaded",
      mcp_server_id: "unvouched",
      warnings: ["loaded without verification: the registry gives no official status for it"],
    });
    const { json } = await callJson(client, "gateway_list");
    expect(
      json.runtime_mcp_servers.find((s: { mcp_server: string }) => s.mcp_server === "unvouched"),
    ).toMatchObject({
      verified: false,
    });
  });

  it("refuses an invalid policy, approval_tools included, before anything is installed", async () => {
    const requests = registry.requests.length;
    const blank = await callJson(client, "gateway_load", { name: "shouter", allow_tools: ["get_*", " "] });
    expect(blank).toMatchObject({
      isError: true,
      text: "Error executing tool gateway_load: invalid_allow_tools: allow_tools.1 must be a non-empty string",
    });
    // Approvals are on by default, so approval_tools is accepted, and checked by the same rules.
    const approval = await callJson(client, "gateway_load", { name: "shouter", approval_tools: ["  "] });
    expect(approval.isError).toBe(true);
    expect(approval.text).toContain("invalid_approval_tools: approval_tools.0 must be a non-empty string");
    expect(registry.requests.length).toBe(requests);
    expect(gateway.services.fleet.has("shouter")).toBe(false);
  });

  it("answers failed when the registry keeps failing, after max_retries more attempts", async () => {
    const requests = registry.requests.length;
    registry.failNext(2, 503);
    const { json } = await callJson(client, "gateway_load", { name: "flaky-name" });
    expect(json).toEqual({
      status: "failed",
      message: `Registry lookup failed: registry ${new URL(registry.url).host} answered HTTP 503 (after 2 attempts)`,
      mcp_server_name: "flaky-name",
    });
    expect(registry.requests.length).toBe(requests + 2);
  });

  it("retries a registry failure once and goes on", async () => {
    registry.failNext(1, 500);
    const { json } = await callJson(client, "gateway_load", { name: "another-name" });
    expect(json.status).toBe("not_found");
  });
});

describe("with hot_loading.enabled: false", () => {
  it("keeps answering that hot loading is not configured", async () => {
    const off = await startTestGateway(fleetYaml("hot_loading:\n  enabled: false\n"));
    const offClient = await connectHttp(await off.app.listen({ host: "127.0.0.1", port: 0 }));
    try {
      for (const [tool, args] of [
        ["gateway_load", { name: "shouter" }],
        ["gateway_unload", { mcp_server: "shouter" }],
      ] as const) {
        const { json } = await callJson(offClient, tool, args);
        expect(json).toEqual({
          error: "hot loading is not configured",
          error_type: "NotConfiguredError",
          details: { feature: "hot loading" },
        });
      }
      const list = await callJson(offClient, "gateway_list");
      expect(list.json.runtime_mcp_servers).toEqual([]);
    } finally {
      await offClient.close();
      await off.close();
    }
  });
});
