import { describe, expect, it } from "vitest";
import {
  type GatewayConfig,
  isGroupEntry,
  isServerEntry,
  listToolPolicies,
} from "../../../src/config/schema.js";
import { validateConfig } from "../../../src/config/validate.js";

function valid(raw: unknown): GatewayConfig {
  const outcome = validateConfig(raw, { strict: true });
  if (outcome.config === undefined) throw new Error(JSON.stringify(outcome.errors));
  return outcome.config;
}

describe("validateConfig", () => {
  it("leaves the document it is given untouched while repairing warnings", () => {
    const raw = { mcp_servers: { math: { command: ["x"], volumes: ["a"] } }, colour: "blue" };
    const copy = structuredClone(raw);
    const outcome = validateConfig(raw);
    expect(outcome.config).toBeDefined();
    expect(outcome.warnings.map((warning) => warning.path)).toEqual(["mcp_servers.math.volumes", "colour"]);
    expect(raw).toEqual(copy);
  });

  it("reads container as docker and a missing mode as subprocess", () => {
    const config = valid({ mcp_servers: { a: { command: ["x"] }, b: { mode: "container", image: "img" } } });
    expect(config.mcp_servers.a?.mode).toBe("subprocess");
    expect(config.mcp_servers.b?.mode).toBe("docker");
  });

  it("still runs cross-section rules on the sections that are valid when another is not", () => {
    const outcome = validateConfig({
      logging: { level: "LOUD" },
      approvals: { enabled: false },
      mcp_servers: { math: { command: ["x"], tools: { approval_list: ["*"] } } },
    });
    expect(outcome.errors.map((error) => error.path)).toEqual([
      "logging.level",
      "mcp_servers.math.tools.approval_list",
    ]);
  });

  it("reads network_mode as network when network is not set", () => {
    const outcome = validateConfig({
      mcp_servers: { box: { mode: "docker", image: "i", network_mode: "host" } },
    });
    const box = outcome.config?.mcp_servers.box;
    expect(box?.mode === "docker" && box.network).toBe("host");
  });
});

describe("configuration helpers", () => {
  const config = valid({
    mcp_servers: {
      math: {
        command: ["x"],
        tools: { deny_list: ["a"] },
        tool_access: { member: { acme: { allow_list: ["b"] } } },
      },
      pool: {
        mode: "group",
        tools: { deny_list: ["c"] },
        members: [
          { id: "math", tools: { deny_list: ["d"] } },
          { id: "inline", command: ["y"], tools: { deny_list: ["e"] } },
        ],
      },
    },
    tool_access: { member: { acme: { deny_list: ["f"] } } },
  });

  it("tells groups from servers", () => {
    const { math, pool } = config.mcp_servers;
    expect(math && isServerEntry(math)).toBe(true);
    expect(pool && isGroupEntry(pool)).toBe(true);
    expect(math && isGroupEntry(math)).toBe(false);
  });

  it("lists every tool policy block with its path", () => {
    const found = listToolPolicies(config.mcp_servers, config.tool_access.member).map(({ path, policy }) => [
      path.join("."),
      policy.deny_list.concat(policy.allow_list),
    ]);
    expect(found).toEqual([
      ["mcp_servers.math.tools", ["a"]],
      ["mcp_servers.math.tool_access.member.acme", ["b"]],
      ["mcp_servers.pool.tools", ["c"]],
      ["mcp_servers.pool.members.0.tools", ["d"]],
      ["mcp_servers.pool.members.1.tools", ["e"]],
      ["tool_access.member.acme", ["f"]],
    ]);
  });
});
