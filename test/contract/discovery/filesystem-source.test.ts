import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FilesystemDiscoverySource } from "../../../src/adapters/discovery/filesystem/filesystem-discovery-source.js";

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "airlock-discovery-fs-"));
  dir = join(root, "servers.d");
  mkdirSync(dir);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const scan = (source: FilesystemDiscoverySource) => source.scan(AbortSignal.timeout(10_000));
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

describe("filesystem discovery source", () => {
  it("reads every mcp_servers entry of the matching files, in file order", async () => {
    write(
      "b-tools.yaml",
      [
        "mcp_servers:",
        "  calculator:",
        "    command: [node, calc.js]",
        "    group: math",
        "  search:",
        "    mode: remote",
        "    endpoint: http://search.internal:8080/mcp",
      ].join("\n"),
    );
    write("a-weather.yaml", "mcp_servers:\n  weather:\n    mode: docker\n    image: example/weather:1\n");
    write("notes.txt", "mcp_servers:\n  ignored:\n    command: [x]\n");
    const { servers, problems } = await scan(new FilesystemDiscoverySource({ path: dir, pattern: "*.yaml" }));
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: "weather",
        definition: { mode: "docker", image: "example/weather:1" },
        connectionInfo: { file: join(dir, "a-weather.yaml") },
      },
      {
        name: "calculator",
        definition: { command: ["node", "calc.js"] },
        connectionInfo: { file: join(dir, "b-tools.yaml") },
        group: "math",
      },
      {
        name: "search",
        definition: { mode: "remote", endpoint: "http://search.internal:8080/mcp" },
        connectionInfo: { file: join(dir, "b-tools.yaml") },
      },
    ]);
  });

  it("reads JSON files when the pattern matches them", async () => {
    write("one.json", JSON.stringify({ mcp_servers: { one: { command: ["node", "one.js"] } } }));
    write("two.yaml", "mcp_servers:\n  two:\n    command: [node, two.js]\n");
    const source = new FilesystemDiscoverySource({ path: dir, pattern: "*.json" });
    expect((await scan(source)).servers.map((server) => server.name)).toEqual(["one"]);
  });

  it("reports malformed files and entries as problem lines and keeps the good ones", async () => {
    write("a-broken.yaml", "mcp_servers:\n  x: [unclosed\n");
    write("b-list.yaml", "- just\n- a list\n");
    write("c-entries.yaml", "mcp_servers: [a, b]\n");
    write(
      "d-mixed.yaml",
      [
        "mcp_servers:",
        "  good:",
        "    command: [node, good.js]",
        "  'bad name':",
        "    command: [node, bad.js]",
        "  scalar: 42",
        "  team:",
        "    mode: group",
        "  badgroup:",
        "    command: [x]",
        "    group: [a]",
        "other: 1",
      ].join("\n"),
    );
    write("e-twin.yaml", "mcp_servers:\n  good:\n    command: [node, twin.js]\n");
    write("f-dupkeys.yaml", "mcp_servers:\n  k:\n    command: [a]\n  k:\n    command: [b]\n");
    const { servers, problems } = await scan(new FilesystemDiscoverySource({ path: dir }));
    expect(servers.map((server) => [server.name, server.connectionInfo.file])).toEqual([
      ["good", join(dir, "d-mixed.yaml")],
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/^file "a-broken.yaml": is not valid YAML or JSON: /),
      'file "b-list.yaml": must be a mapping with mcp_servers (no server found)',
      'file "c-entries.yaml": mcp_servers must be a mapping of server ids to definitions',
      'file "d-mixed.yaml": key "other" is not read (only mcp_servers is); ignored',
      expect.stringMatching(
        /^file "d-mixed.yaml": mcp_servers.bad name: "bad name" is not a valid server id/,
      ),
      'file "d-mixed.yaml": mcp_servers.scalar must be a mapping of server keys (mode, command, endpoint, ...)',
      'file "d-mixed.yaml": mcp_servers.team: groups are declared in the configuration file, not discovered',
      "file \"d-mixed.yaml\": mcp_servers.badgroup.group must be a group id (letters, digits, '_', '-', '.')",
      'file "e-twin.yaml" (mcp_servers.good): name "good" is already used by file "d-mixed.yaml" (mcp_servers.good); ignored',
      'file "f-dupkeys.yaml": is not valid YAML or JSON: Map keys must be unique at line 4, column 3',
    ]);
  });

  it("no longer finds a server once its file is removed", async () => {
    write("a.yaml", "mcp_servers:\n  a:\n    command: [node, a.js]\n");
    write("b.yaml", "mcp_servers:\n  b:\n    command: [node, b.js]\n");
    const source = new FilesystemDiscoverySource({ path: dir });
    expect((await scan(source)).servers.map((server) => server.name)).toEqual(["a", "b"]);
    unlinkSync(join(dir, "a.yaml"));
    expect((await scan(source)).servers.map((server) => server.name)).toEqual(["b"]);
  });

  it("rejects when the directory is missing", async () => {
    const source = new FilesystemDiscoverySource({ path: join(root, "absent") });
    await expect(scan(source)).rejects.toThrow(/^cannot read the directory ".*absent" \(ENOENT\)$/);
  });

  it("tells the watcher's subscriber when a matching file changes", async () => {
    const source = new FilesystemDiscoverySource({ path: dir });
    let notify: () => void = () => {};
    const changed = new Promise<void>((resolve) => {
      notify = resolve;
    });
    const stop = source.watch(() => notify());
    let writer: NodeJS.Timeout | undefined;
    try {
      // The watcher reports only once its first read of the directory is done: write until it does.
      const touch = () => write("new.yaml", "mcp_servers:\n  fresh:\n    command: [node, fresh.js]\n");
      touch();
      writer = setInterval(touch, 250);
      await changed;
      expect((await scan(source)).servers.map((server) => server.name)).toEqual(["fresh"]);
    } finally {
      clearInterval(writer);
      stop();
    }
  });
});
