import { describe, expect, it } from "vitest";
import { checkDefinition } from "../../../src/composition/discovery.js";

describe("the schema check of a discovered definition", () => {
  it("reads a definition as the configuration file does, defaults included, with provenance discovery", () => {
    const verdict = checkDefinition("adder", { command: ["node", "server.js"], env: { A: "1" } });
    expect(verdict).toMatchObject({
      ok: true,
      spec: {
        id: "adder",
        mode: "subprocess",
        command: ["node", "server.js"],
        env: { A: "1" },
        idle_ttl_s: 300,
        health_check_interval_s: 60,
        max_consecutive_failures: 3,
        source: "discovery",
      },
    });
  });

  it("reads container as docker and keeps remote options for the factory", () => {
    expect(checkDefinition("img", { mode: "container", image: "mcp/x:1" })).toMatchObject({
      ok: true,
      spec: { mode: "docker", image: "mcp/x:1" },
    });
    expect(checkDefinition("web", { mode: "remote", endpoint: "http://10.0.0.5:8080/mcp" })).toMatchObject({
      ok: true,
      spec: { mode: "remote", endpoint: "http://10.0.0.5:8080/mcp" },
    });
  });

  it.each<[string, string, Record<string, unknown>, RegExp]>([
    ["a bare string command", "a", { command: "node server.js" }, /^command: must be a non-empty list/],
    ["a missing endpoint", "a", { mode: "remote" }, /^endpoint: is required for mode remote/],
    ["an unknown mode", "a", { mode: "ftp" }, /^mode: must be one of/],
    ["a group", "a", { mode: "group", members: [] }, /^mode: must not be group/],
    ["an out-of-range key", "a", { command: ["x"], idle_ttl_s: 0 }, /^idle_ttl_s: /],
    ["an unknown key", "a", { command: ["x"], colour: "red" }, /colour/],
    [
      "a key of another mode",
      "a",
      { command: ["x"], volumes: ["/a:/b"] },
      /^volumes: applies only to mode docker/,
    ],
    ["a bad name", "-bad", { command: ["x"] }, /^\(name\): is not a valid id/],
  ])("refuses %s, naming the field and the rule", (_title, name, definition, problem) => {
    const verdict = checkDefinition(name, definition);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.problem).toMatch(problem);
  });
});
