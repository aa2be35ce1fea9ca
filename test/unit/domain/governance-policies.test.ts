import { describe, expect, it } from "vitest";
import { utf8Length } from "../../../src/domain/limits/utf8-length.js";
import { accessAllows, accessRulesAllow } from "../../../src/domain/policy/access-policy.js";
import { compileAgentPolicy } from "../../../src/domain/policy/agent-policy.js";
import { jsonByteLength } from "../../../src/domain/policy/payload-size.js";

describe("access rules for prompts and resources", () => {
  it.each([
    ["no rules let everything through", undefined, "file:///a", true],
    [
      "an allow list lets only its matches through",
      { allow_list: ["docs://*"], deny_list: [] },
      "docs://x",
      true,
    ],
    ["an allow list stops the rest", { allow_list: ["docs://*"], deny_list: [] }, "file:///a", false],
    [
      "with an allow list the deny list is ignored",
      { allow_list: ["docs://*"], deny_list: ["docs://*"] },
      "docs://x",
      true,
    ],
    ["a deny list stops its matches", { allow_list: [], deny_list: ["*secret*"] }, "file:///secret", false],
    ["a deny list lets the rest through", { allow_list: [], deny_list: ["*secret*"] }, "file:///open", true],
  ] as const)("%s", (_name, rules, key, expected) => {
    expect(accessRulesAllow(rules, key)).toBe(expected);
  });

  it("needs every block to allow, and leaves a kind without a block unrestricted", () => {
    const server = { resource: { allow_list: [], deny_list: ["a://*"] } };
    const tenant = { prompt: { allow_list: ["greet"], deny_list: [] } };
    expect(accessAllows([server, tenant, undefined], "resource", "a://1")).toBe(false);
    expect(accessAllows([server, tenant], "resource", "b://1")).toBe(true);
    expect(accessAllows([server, tenant], "prompt", "greet")).toBe(true);
    expect(accessAllows([server, tenant], "prompt", "other")).toBe(false);
  });
});

describe("the agent-pushed policy", () => {
  it("turns the entries of one target into one policy block, audit entries into none", () => {
    const compiled = compileAgentPolicy([
      { mcp_server_id: "*", action: "deny", tool_name: "delete_*" },
      { mcp_server_id: "math", action: "allow", tool_name: "add" },
      { mcp_server_id: "math", action: "require-approval", tool_name: "add", approval_timeout_seconds: 30 },
      { mcp_server_id: "text", action: "audit", tool_name: "*" },
    ]);
    expect(compiled.get("*")).toEqual({ allow_list: [], deny_list: ["delete_*"], approval_list: [] });
    expect(compiled.get("math")).toEqual({ allow_list: ["add"], deny_list: [], approval_list: ["add"] });
    expect(compiled.has("text")).toBe(false);
  });
});

describe("payload size", () => {
  it("counts UTF-8 bytes of the JSON encoding", () => {
    expect(jsonByteLength({ a: "x" })).toBe(9);
    expect(jsonByteLength({ a: "é" })).toBe(10);
    expect(jsonByteLength({ a: "😀" })).toBe(12);
    expect(utf8Length("€")).toBe(3);
  });

  it("reports a value that cannot be encoded as unmeasurable", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonByteLength(cycle)).toBeNull();
    expect(jsonByteLength({ n: 1n })).toBeNull();
    expect(jsonByteLength(undefined)).toBeNull();
  });
});
