import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DnsEndpointGuard } from "../../../src/adapters/net/dns-endpoint-guard.js";
import { HotLoadingService, type LoadResult } from "../../../src/app/hot-loading/hot-loading-service.js";
import type { McpRegistry, RegistryServer } from "../../../src/app/ports/mcp-registry.js";
import { parseToolPolicy } from "../../../src/composition/hot-loading.js";
import { GatewayError } from "../../../src/domain/errors.js";
import { SERVER_DEFAULTS } from "../../../src/domain/server/server-spec.js";
import { type FleetHarness, ManualClock, makeFleet } from "../../support/fleet.js";
import { TEXT } from "../../support/gateway.js";

/** A registry answering from a list, matching names and descriptions as the real one does. */
class ListRegistry implements McpRegistry {
  searches: string[] = [];
  down = false;

  constructor(public servers: RegistryServer[]) {}

  async search(term: string): Promise<readonly RegistryServer[]> {
    this.searches.push(term);
    if (this.down) throw new Error("cannot reach registry registry.test (ECONNREFUSED)");
    const t = term.toLowerCase();
    return this.servers.filter(
      (s) => s.name.toLowerCase().includes(t) || s.description.toLowerCase().includes(t),
    );
  }
}

const ACTIVE = { status: "active", isLatest: true } as const;

/**
 * `@modelcontextprotocol/server-everything` is a development dependency: with `npm_config_offline`
 * (a default the entry declares, as any publisher could) npx runs the installed copy, never the
 * network.
 */
const EVERYTHING: RegistryServer = {
  name: "io.github.modelcontextprotocol/server-everything",
  description: "MCP server that exercises all the features of the MCP protocol",
  version: "2026.8.31",
  packages: [
    {
      registryType: "npm",
      identifier: "@modelcontextprotocol/server-everything",
      version: "2026.8.31",
      transportType: "stdio",
      environmentVariables: [
        { name: "npm_config_offline", default: "true", isRequired: false, isSecret: false },
        { name: "EVERYTHING_TOKEN", isRequired: true, isSecret: true, description: "A token" },
      ],
      packageArguments: [{ type: "positional", value: "stdio", isRequired: false }],
    },
  ],
  remotes: [],
  official: ACTIVE,
};

const entry = (name: string, parts: Partial<RegistryServer> = {}): RegistryServer => ({
  name,
  description: "",
  version: "1.0.0",
  packages: [],
  remotes: [],
  official: ACTIVE,
  ...parts,
});

let harness: FleetHarness;
let clock: ManualClock;
let registry: ListRegistry;
let service: HotLoadingService;
const environment: Record<string, string> = { EVERYTHING_TOKEN: "token-value-123" };

beforeAll(() => {
  clock = new ManualClock();
  harness = makeFleet({ clock });
  registry = new ListRegistry([
    EVERYTHING,
    entry("io.github.a/weather"),
    entry("io.github.b/weather"),
    entry("io.github.x/unvouched", { official: null }),
    entry("io.github.x/old", { official: { status: "deprecated", statusMessage: "use io.github.x/new" } }),
    entry("io.github.x/needs-key", {
      packages: [
        {
          registryType: "npm",
          identifier: "@x/needs-key",
          version: "1.0.0",
          transportType: "stdio",
          environmentVariables: [
            {
              name: "NEEDS_KEY_TOKEN",
              isRequired: true,
              isSecret: true,
              description: "Key of the x service",
            },
          ],
          packageArguments: [],
        },
      ],
    }),
    entry("io.github.x/local-remote", {
      remotes: [{ type: "streamable-http", url: "http://127.0.0.1:9/mcp", headers: [] }],
    }),
    entry("io.github.x/pypi-only", {
      packages: [
        {
          registryType: "pypi",
          identifier: "pypi-only",
          transportType: "stdio",
          environmentVariables: [],
          packageArguments: [],
        },
      ],
    }),
    entry("io.github.x/vanished", {
      packages: [
        {
          registryType: "npm",
          identifier: "@airlock-test/package-that-does-not-exist",
          version: "0.0.1",
          transportType: "stdio",
          environmentVariables: [
            { name: "npm_config_offline", default: "true", isRequired: false, isSecret: false },
          ],
          packageArguments: [],
        },
      ],
    }),
  ]);
  service = new HotLoadingService({
    registry,
    fleet: harness.fleet,
    groups: { has: () => false },
    endpointGuard: new DnsEndpointGuard(),
    clock,
    logger: pino({ level: "silent" }),
    readEnv: (name) => environment[name],
    parsePolicy: parseToolPolicy,
    approvalsAvailable: false,
  });
  harness.fleet.register({
    id: "declared",
    mode: "subprocess",
    command: ["node", TEXT],
    env: {},
    ...SERVER_DEFAULTS,
    source: "config",
  });
});

afterAll(async () => {
  await harness?.close();
});

const load = (name: string, options: Partial<Parameters<HotLoadingService["load"]>[0]> = {}) =>
  service.load({ name, force_unverified: false, ...options });

const ids = () => harness.fleet.list().map((server) => server.id);

describe("gateway_load", () => {
  it("loads a verified npm package once, even when asked twice at the same time", async () => {
    const results = await Promise.all([
      load("server-everything", { allow_tools: ["echo", "nothing_*"] }),
      load("io.github.modelcontextprotocol/server-everything"),
    ]);
    const loaded = results.find((r) => r.status === "loaded");
    const again = results.find((r) => r.status === "already_loaded");
    expect(loaded).toEqual<LoadResult>({
      status: "loaded",
      message: expect.stringContaining("as 'server-everything'"),
      mcp_server_id: "server-everything",
      mcp_server_name: "io.github.modelcontextprotocol/server-everything",
      tools: ["echo"],
      warnings: [
        "passed from the gateway's environment: EVERYTHING_TOKEN",
        "allow_tools pattern 'nothing_*' matches no tool of the server",
      ],
    });
    expect(again).toMatchObject({ mcp_server_id: "server-everything" });
  });

  it("runs the package with npx as a runtime server, with the variables it declared", () => {
    const server = harness.fleet.require("server-everything");
    expect(server.lifecycle.state).toBe("ready");
    expect(server.spec).toMatchObject({
      mode: "subprocess",
      source: "runtime",
      command: ["npx", "-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"],
      env: { npm_config_offline: "true", EVERYTHING_TOKEN: "token-value-123" },
      tool_policy: { allow_list: ["echo", "nothing_*"], deny_list: [], approval_list: [] },
    });
  });

  it("lists it among the runtime servers", () => {
    expect(service.runtimeServers()).toEqual([
      {
        mcp_server: "server-everything",
        state: "ready",
        source: "registry:io.github.modelcontextprotocol/server-everything@2026.8.31",
        verified: true,
        ephemeral: true,
        loaded_at: new Date(clock.now()).toISOString(),
        lifetime_seconds: 0,
        dead: null,
      },
    ]);
    expect(service.runtimeServers("cold")).toEqual([]);
  });

  it("answers not_found for a name the registry does not know", async () => {
    expect(await load("nothing-like-it")).toEqual({
      status: "not_found",
      message: "No server named 'nothing-like-it' in the registry",
      mcp_server_name: "nothing-like-it",
    });
  });

  it("answers ambiguous, with the matches, for a short name of two namespaces or a partial name", async () => {
    const twins = await load("weather");
    expect(twins).toMatchObject({ status: "ambiguous", mcp_server_name: "weather" });
    expect(twins.status === "ambiguous" && twins.matches.map((m) => m.name)).toEqual([
      "io.github.a/weather",
      "io.github.b/weather",
    ]);
    const partial = await load("needs");
    expect(partial).toMatchObject({
      status: "ambiguous",
      matches: [{ name: "io.github.x/needs-key", description: "", version: "1.0.0", verified: true }],
    });
  });

  it("answers unverified for an entry the registry does not vouch for, installing nothing", async () => {
    const before = ids();
    expect(await load("io.github.x/unvouched")).toEqual({
      status: "unverified",
      message: expect.stringContaining("force_unverified: true"),
      mcp_server_name: "io.github.x/unvouched",
      reason: "the registry gives no official status for it",
    });
    expect(await load("io.github.x/old")).toMatchObject({
      status: "unverified",
      reason: "the registry marks it deprecated: use io.github.x/new",
    });
    expect(ids()).toEqual(before);
  });

  it("answers missing_secrets with the variables and how to provide them, installing nothing", async () => {
    const before = ids();
    expect(await load("io.github.x/needs-key")).toEqual({
      status: "missing_secrets",
      message: expect.stringContaining("NEEDS_KEY_TOKEN"),
      mcp_server_name: "io.github.x/needs-key",
      missing: ["NEEDS_KEY_TOKEN"],
      instructions: expect.stringMatching(
        /^Set NEEDS_KEY_TOKEN in the gateway's environment and restart the gateway.*NEEDS_KEY_TOKEN \(secret\): Key of the x service$/,
      ),
    });
    expect(ids()).toEqual(before);
  });

  it("refuses an invalid policy before asking the registry, and approval_tools without a gate", async () => {
    const searches = registry.searches.length;
    const before = ids();
    await expect(load("io.github.x/needs-key", { allow_tools: [""] })).rejects.toMatchObject({
      type: "ValidationError",
      details: { issues: [{ field: "allow_tools.0", rule: "must be a non-empty string" }] },
    });
    const refused = await load("io.github.x/needs-key", { approval_tools: ["delete_*"] }).catch((e) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused.message).toMatch(/^Invalid field 'approval_tools': is refused: no approval gate/);
    expect(registry.searches.length).toBe(searches);
    expect(ids()).toEqual(before);
  });

  it("answers failed when the registry cannot be reached", async () => {
    registry.down = true;
    try {
      expect(await load("anything")).toEqual({
        status: "failed",
        message: "Registry lookup failed: cannot reach registry registry.test (ECONNREFUSED)",
        mcp_server_name: "anything",
      });
    } finally {
      registry.down = false;
    }
  });

  it("answers failed for an entry the gateway cannot run, saying why", async () => {
    expect(await load("io.github.x/pypi-only")).toEqual({
      status: "failed",
      message:
        "'io.github.x/pypi-only' cannot be run by the gateway: pypi package 'pypi-only' is not supported: only npm packages are run",
      mcp_server_name: "io.github.x/pypi-only",
    });
  });

  it("refuses a remote the SSRF policy refuses, installing nothing", async () => {
    const before = ids();
    expect(await load("io.github.x/local-remote")).toEqual({
      status: "failed",
      message:
        "'io.github.x/local-remote' was refused: endpoint host 127.0.0.1 is a loopback address (127.0.0.0/8)",
      mcp_server_name: "io.github.x/local-remote",
    });
    expect(ids()).toEqual(before);
  });

  it("removes a server that did not start and answers failed", async () => {
    const before = ids();
    const result = await load("io.github.x/vanished");
    expect(result).toMatchObject({ status: "failed", message: expect.stringContaining("did not start") });
    expect(ids()).toEqual(before);
    expect(service.runtimeServers().map((s) => s.mcp_server)).toEqual(["server-everything"]);
  });
});

describe("gateway_unload", () => {
  it("leaves declared servers and unknown ids alone (not_hot_loaded)", async () => {
    expect(await service.unload("declared")).toEqual({
      status: "not_hot_loaded",
      mcp_server: "declared",
      message: "MCP server 'declared' is declared in the configuration file, not hot-loaded",
    });
    expect(await service.unload("ghost")).toMatchObject({ status: "not_hot_loaded", mcp_server: "ghost" });
    expect(harness.fleet.has("declared")).toBe(true);
  });

  it("stops and removes a runtime server, with how long it was loaded", async () => {
    clock.advance(90_000);
    const server = harness.fleet.require("server-everything");
    expect(await service.unload("server-everything")).toEqual({
      status: "unloaded",
      mcp_server: "server-everything",
      message: expect.stringContaining("after 90 s"),
      lifetime_seconds: 90,
    });
    expect(harness.fleet.has("server-everything")).toBe(false);
    expect(server.connection).toBeNull();
    expect(service.runtimeServers()).toEqual([]);
    expect(
      harness.events.some((e) => e.type === "McpServerRemoved" && e.mcp_server_id === "server-everything"),
    ).toBe(true);
    expect(await service.unload("server-everything")).toMatchObject({ status: "not_hot_loaded" });
  });
});
