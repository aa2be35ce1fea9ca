import { describe, expect, it } from "vitest";
import { evaluateEgress } from "../../../../src/domain/egress/evaluate.js";
import { compileL7Policy, type L7Policy } from "../../../../src/domain/egress/l7-policy.js";
import { paramHeaders } from "../../../../src/domain/egress/param-headers.js";

const policy = (document: Record<string, unknown>): L7Policy => {
  const result = compileL7Policy(document);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.policy;
};
const call = (tool: string, args: unknown = {}, headers: Record<string, string> = {}) => ({
  tool,
  args,
  paramHeaders: new Map(Object.entries(headers)),
});
const FAKE_KEY = `AKIA${"IOSFODNN7EXAMPLE"}`;

describe("the verdict of an L7 egress policy", () => {
  const rules = policy({
    tools: { allow: ["*"], requireApproval: ["send_*", "delete_*"], deny: ["delete_*"] },
    defaultAction: "Deny",
  });

  it.each([
    ["deny wins over requireApproval and allow", "delete_all", "deny", "tools.deny:delete_*"],
    ["requireApproval wins over allow", "send_mail", "requireApproval", "tools.requireApproval:send_*"],
    ["allow when only allow matches", "read_file", "allow", "tools.allow:*"],
  ] as const)("%s", (_name, tool, action, decidedBy) => {
    const verdict = evaluateEgress(rules, call(tool));
    expect([verdict.action, verdict.decidedBy]).toEqual([action, decidedBy]);
  });

  it("applies defaultAction when no rule matches", () => {
    const deny = evaluateEgress(policy({ tools: { allow: ["read_*"] } }), call("write_file"));
    expect([deny.action, deny.decidedBy]).toEqual(["deny", "defaultAction:Deny"]);
    const allow = evaluateEgress(
      policy({ tools: { deny: ["x"] }, defaultAction: "Allow" }),
      call("write_file"),
    );
    expect([allow.action, allow.decidedBy]).toEqual(["allow", "defaultAction:Allow"]);
  });

  it("denies every call under the default policy", () => {
    expect(evaluateEgress(policy({}), call("anything")).action).toBe("deny");
  });

  describe("header rules", () => {
    const headerRules = policy({
      tools: { allow: ["query"] },
      headers: {
        deny: [{ name: "Mcp-Param-Region", values: ["cn-*"] }],
        requireApproval: [{ name: "Mcp-Param-Region", values: ["eu-*"] }],
        allow: [{ name: "Mcp-Param-Tier", values: ["free"] }],
      },
    });

    it("a header deny beats a tool allow", () => {
      const verdict = evaluateEgress(headerRules, call("query", {}, { "mcp-param-region": "cn-north-1" }));
      expect([verdict.action, verdict.decidedBy]).toEqual(["deny", "headers.deny:Mcp-Param-Region"]);
    });

    it("a header requireApproval beats a tool allow", () => {
      expect(evaluateEgress(headerRules, call("query", {}, { "mcp-param-region": "eu-west-1" })).action).toBe(
        "requireApproval",
      );
    });

    it("a header allow does not lift a tool deny, and decides where no tool rule matched", () => {
      const strict = policy({
        tools: { deny: ["drop"] },
        headers: { allow: [{ name: "Mcp-Param-Tier", values: ["free"] }] },
      });
      expect(evaluateEgress(strict, call("drop", {}, { "mcp-param-tier": "free" })).action).toBe("deny");
      const open = evaluateEgress(strict, call("other", {}, { "mcp-param-tier": "free" }));
      expect([open.action, open.decidedBy]).toEqual(["allow", "headers.allow:Mcp-Param-Tier"]);
    });

    it("matches header names case-insensitively and values case-sensitively", () => {
      const mixed = policy({
        headers: { deny: [{ name: "MCP-PARAM-REGION", values: ["cn-*"] }] },
        defaultAction: "Allow",
      });
      expect(evaluateEgress(mixed, call("q", {}, { "mcp-param-region": "cn-1" })).action).toBe("deny");
      expect(evaluateEgress(mixed, call("q", {}, { "mcp-param-region": "CN-1" })).action).toBe("allow");
    });

    it("takes header values from the arguments through the tool's x-mcp-header annotations", () => {
      const schema = {
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          limit: { type: "integer", "x-mcp-header": "Limit" },
          note: { type: "string" },
        },
      };
      expect(paramHeaders(schema, { region: "cn-north-1", limit: 5, note: "n" })).toEqual(
        new Map([
          ["mcp-param-region", "cn-north-1"],
          ["mcp-param-limit", "5"],
        ]),
      );
      expect(paramHeaders(schema, { region: null })).toEqual(new Map());
      expect(paramHeaders(undefined, { region: "x" })).toEqual(new Map());
    });
  });

  describe("argument rules", () => {
    it("denies a secret of a listed group even when the tool is allowed, naming the group, not the secret", () => {
      const verdict = evaluateEgress(
        policy({ tools: { allow: ["*"] }, arguments: { secretPatterns: ["aws-keys"] } }),
        call("upload", { files: [{ content: `key=${FAKE_KEY}` }] }),
      );
      expect(verdict.action).toBe("deny");
      expect(verdict.decidedBy).toBe("arguments.secretPatterns:aws-keys");
      expect(verdict.secretGroups).toEqual(["aws-keys"]);
      expect(JSON.stringify(verdict)).not.toContain(FAKE_KEY);
    });

    it("a secret turns a requireApproval into a deny: nobody is asked to approve a leak", () => {
      const verdict = evaluateEgress(
        policy({ tools: { requireApproval: ["*"] }, arguments: { secretPatterns: ["aws-keys"] } }),
        call("send", { body: FAKE_KEY }),
      );
      expect(verdict.action).toBe("deny");
    });

    it("ignores secrets of groups the policy does not list", () => {
      const verdict = evaluateEgress(
        policy({ tools: { allow: ["*"] }, arguments: { secretPatterns: ["jwt"] } }),
        call("send", { body: FAKE_KEY }),
      );
      expect([verdict.action, verdict.secretGroups]).toEqual(["allow", []]);
    });

    it("allows a payload of exactly maxPayloadBytes and denies one byte more", () => {
      const args = { text: "x".repeat(100) };
      const size = Buffer.byteLength(JSON.stringify(args));
      const at = evaluateEgress(
        policy({ tools: { allow: ["*"] }, arguments: { maxPayloadBytes: size } }),
        call("t", args),
      );
      expect([at.action, at.payloadBytes]).toEqual(["allow", size]);
      const over = evaluateEgress(
        policy({ tools: { allow: ["*"] }, arguments: { maxPayloadBytes: size - 1 } }),
        call("t", args),
      );
      expect([over.action, over.decidedBy]).toEqual(["deny", "arguments.maxPayloadBytes"]);
      expect(over.reason).toBe(`the arguments are ${size} bytes, over maxPayloadBytes ${size - 1}`);
    });

    it("counts the payload in UTF-8 bytes, not characters", () => {
      const args = { text: "é".repeat(10) };
      const json = JSON.stringify(args);
      // Between the two counts: within the limit in characters, over it in bytes.
      const limit = json.length + 4;
      expect(Buffer.byteLength(json)).toBeGreaterThan(limit);
      const verdict = evaluateEgress(
        policy({ tools: { allow: ["*"] }, arguments: { maxPayloadBytes: limit } }),
        call("t", args),
      );
      expect([verdict.action, verdict.payloadBytes]).toEqual(["deny", Buffer.byteLength(json)]);
    });

    it("denies arguments that cannot be encoded as JSON", () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const verdict = evaluateEgress(policy({ defaultAction: "Allow" }), call("t", cyclic));
      expect([verdict.action, verdict.payloadBytes]).toEqual(["deny", null]);
    });

    it("lists every finding in its reasons", () => {
      const verdict = evaluateEgress(
        policy({ tools: { allow: ["t"] }, arguments: { secretPatterns: ["aws-keys"], maxPayloadBytes: 10 } }),
        call("t", { body: FAKE_KEY }),
      );
      expect(verdict.reasons).toEqual([
        "tool 't' matched tools.allow 't'",
        expect.stringContaining("over maxPayloadBytes 10"),
        "the arguments contain a secret of pattern group 'aws-keys'",
      ]);
      expect(verdict.decidedBy).toBe("arguments.maxPayloadBytes");
    });
  });
});
