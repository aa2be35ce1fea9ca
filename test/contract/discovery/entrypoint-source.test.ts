import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EntrypointDiscoverySource } from "../../../src/adapters/discovery/entrypoint/entrypoint-discovery-source.js";
import { PACKAGE_DIR_PLACEHOLDER as PACKAGE_DIR } from "../../../src/adapters/discovery/entrypoint/package-declaration.js";

let root: string;
let modules: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "airlock-discovery-pkg-"));
  modules = join(root, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function install(name: string, manifest: unknown): string {
  const dir = join(modules, ...name.split("/"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    typeof manifest === "string" ? manifest : JSON.stringify(manifest),
  );
  return dir;
}

const scan = (source: EntrypointDiscoverySource) => source.scan(AbortSignal.timeout(10_000));

describe("entrypoint discovery source", () => {
  it("finds servers declared by plain and scoped packages, with paths resolved against the package", async () => {
    const weather = install("@acme/weather-mcp", {
      name: "@acme/weather-mcp",
      version: "1.4.2",
      airlock: {
        mcp_servers: {
          weather: {
            command: ["node", "./dist/server.js", "--data", `${PACKAGE_DIR}/data`],
            env: { DATA_DIR: `${PACKAGE_DIR}/data`, LEVEL: "info" },
            group: "forecasts",
          },
        },
      },
    });
    install("calc-mcp", {
      name: "calc-mcp",
      version: "0.1.0",
      airlock: { mcp_servers: { calc: { mode: "docker", image: "acme/calc:0.1.0", args: ["./serve"] } } },
    });
    install("left-pad", { name: "left-pad", version: "1.3.0" });
    const { servers, problems } = await scan(new EntrypointDiscoverySource({ nodeModules: modules }));
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: "weather",
        definition: {
          command: ["node", join(weather, "dist/server.js"), "--data", `${weather}/data`],
          env: { DATA_DIR: `${weather}/data`, LEVEL: "info" },
        },
        connectionInfo: { package: "@acme/weather-mcp", version: "1.4.2" },
        group: "forecasts",
      },
      {
        name: "calc",
        // Not a subprocess: `./serve` names a path inside the container and is left alone.
        definition: { mode: "docker", image: "acme/calc:0.1.0", args: ["./serve"] },
        connectionInfo: { package: "calc-mcp", version: "0.1.0" },
      },
    ]);
  });

  it("reports malformed manifests and declarations, and a name two packages ask for", async () => {
    install("a-broken", '{"name": "a-broken", "airlock": {');
    install("b-shape", { name: "b-shape", airlock: ["x"] });
    install("c-good", {
      name: "c-good",
      version: "2.0.0",
      airlock: { mcp_servers: { shared: { command: ["c"] } } },
    });
    install("d-twin", {
      name: "d-twin",
      version: "1.0.0",
      airlock: { mcp_servers: { shared: { command: ["d"] } } },
    });
    install("e-entry", { name: "e-entry", airlock: { mcp_servers: { "no/slash": { command: ["e"] } } } });
    // A malformed manifest that does not mention airlock is none of this source's business.
    install("f-unrelated", "{ not json");
    mkdirSync(join(modules, "g-no-manifest"));
    const { servers, problems } = await scan(new EntrypointDiscoverySource({ nodeModules: modules }));
    expect(servers.map((server) => [server.name, server.connectionInfo.package])).toEqual([
      ["shared", "c-good"],
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^package "a-broken": package.json is not valid JSON: /),
      'package "b-shape": "airlock" must be a mapping with mcp_servers',
      'package "d-twin" (mcp_servers.shared): name "shared" is already used by package "c-good" (mcp_servers.shared); ignored',
      expect.stringMatching(
        /^package "e-entry": mcp_servers.no\/slash: "no\/slash" is not a valid server id/,
      ),
    ]);
  });

  it("no longer finds a package once it is uninstalled", async () => {
    install("one", {
      name: "one",
      version: "1.0.0",
      airlock: { mcp_servers: { one: { command: ["one"] } } },
    });
    install("two", {
      name: "two",
      version: "1.0.0",
      airlock: { mcp_servers: { two: { command: ["two"] } } },
    });
    const source = new EntrypointDiscoverySource({ nodeModules: modules });
    expect((await scan(source)).servers.map((server) => server.name)).toEqual(["one", "two"]);
    rmSync(join(modules, "one"), { recursive: true });
    expect((await scan(source)).servers.map((server) => server.name)).toEqual(["two"]);
  });

  it("rejects when node_modules is missing", async () => {
    const source = new EntrypointDiscoverySource({ nodeModules: join(root, "absent", "node_modules") });
    await expect(scan(source)).rejects.toThrow(/^cannot read node_modules ".*node_modules" \(ENOENT\)$/);
  });
});
