import { describe, expect, it } from "vitest";
import { MemoryL7PolicyRepository } from "../../../../src/adapters/store/memory/memory-l7-policy-repository.js";
import { NodeHasher } from "../../../../src/adapters/system/node-hasher.js";
import { EgressPolicies } from "../../../../src/app/egress/egress-policies.js";
import {
  compileL7Policy,
  DEFAULT_L7_POLICY,
  type L7Policy,
} from "../../../../src/domain/egress/l7-policy.js";

const compiled = (document: unknown): L7Policy => {
  const result = compileL7Policy(document);
  if (!result.ok) throw new Error(`did not compile: ${JSON.stringify(result.issues)}`);
  return result.policy;
};
const issues = (document: unknown) => {
  const result = compileL7Policy(document);
  if (result.ok) throw new Error("compiled");
  return result.issues;
};

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const policies = () =>
  new EgressPolicies({
    repository: new MemoryL7PolicyRepository(),
    hasher: new NodeHasher(),
    clock: { now: () => 0, monotonic: () => 0 },
    logger: silent,
  });

describe("compiling an L7 egress policy", () => {
  it("fills in every section of an empty document: no rules, default action Deny, mode Enforce", () => {
    expect(compiled({})).toEqual({
      tools: { allow: [], deny: [], requireApproval: [] },
      headers: { allow: [], deny: [], requireApproval: [] },
      arguments: { secretPatterns: [], maxPayloadBytes: null },
      defaultAction: "Deny",
      mode: "Enforce",
    });
    expect(compiled({})).toEqual(DEFAULT_L7_POLICY);
  });

  it("fills in the missing lists of a partial section and keeps what was given", () => {
    const policy = compiled({
      tools: { deny: ["delete_*"] },
      headers: { requireApproval: [{ name: "Mcp-Param-Region", values: ["us-*"] }] },
      arguments: { maxPayloadBytes: 4096 },
      defaultAction: "Allow",
      mode: "Audit",
    });
    expect(policy).toEqual({
      tools: { allow: [], deny: ["delete_*"], requireApproval: [] },
      headers: { allow: [], deny: [], requireApproval: [{ name: "Mcp-Param-Region", values: ["us-*"] }] },
      arguments: { secretPatterns: [], maxPayloadBytes: 4096 },
      defaultAction: "Allow",
      mode: "Audit",
    });
  });

  it("reads null sections and lists as absent, and drops duplicate entries", () => {
    const policy = compiled({
      tools: { allow: ["a", "b", "a"], deny: null },
      headers: null,
      arguments: null,
    });
    expect(policy.tools).toEqual({ allow: ["a", "b"], deny: [], requireApproval: [] });
    expect(compiled({ arguments: { secretPatterns: ["jwt", "jwt"] } }).arguments.secretPatterns).toEqual([
      "jwt",
    ]);
  });

  it.each([
    ["absent", undefined],
    ["lower case", "audit"],
    ["another word", "Observe"],
    ["not a string", 1],
  ])("treats a mode that is %s as Enforce", (_name, mode) => {
    expect(compiled({ mode }).mode).toBe("Enforce");
  });

  it("refuses an unknown secret pattern group, naming it and the known ones", () => {
    const [issue, ...rest] = issues({ arguments: { secretPatterns: ["aws-keys", "github-token"] } });
    expect(rest).toEqual([]);
    expect(issue!.field).toBe("arguments.secretPatterns[1]");
    expect(issue!.rule).toContain("'github-token'");
    expect(issue!.rule).toContain("aws-keys, jwt, pem-blocks, github-tokens");
  });

  it.each([
    ["an unknown top-level field", { defaultaction: "Allow" }, "defaultaction"],
    ["an unknown rule kind", { tools: { block: ["x"] } }, "tools.block"],
    ["a section that is not an object", { tools: ["x"] }, "tools"],
    ["a rule list that is not a list", { tools: { deny: "x" } }, "tools.deny"],
    ["an empty glob", { tools: { allow: [""] } }, "tools.allow[0]"],
    ["a glob that is not a string", { tools: { allow: [3] } }, "tools.allow[0]"],
    ["a default action other than Allow or Deny", { defaultAction: "allow" }, "defaultAction"],
    ["a negative payload limit", { arguments: { maxPayloadBytes: -1 } }, "arguments.maxPayloadBytes"],
    ["a fractional payload limit", { arguments: { maxPayloadBytes: 1.5 } }, "arguments.maxPayloadBytes"],
    ["a payload limit as text", { arguments: { maxPayloadBytes: "1kb" } }, "arguments.maxPayloadBytes"],
    [
      "secretPatterns that is not a list",
      { arguments: { secretPatterns: "jwt" } },
      "arguments.secretPatterns",
    ],
    [
      "a header selector on Authorization",
      { headers: { deny: [{ name: "Authorization", values: ["*"] }] } },
      "headers.deny[0].name",
    ],
    [
      "a header selector without values",
      { headers: { deny: [{ name: "Mcp-Param-Region", values: [] }] } },
      "headers.deny[0].values",
    ],
    ["a header selector given as text", { headers: { allow: ["Mcp-Param-Region"] } }, "headers.allow[0]"],
    [
      "an unknown field of a header selector",
      { headers: { allow: [{ name: "Mcp-Param-A", values: ["x"], value: "y" }] } },
      "headers.allow[0].value",
    ],
    ["a body that is a list", [], "(body)"],
  ])("refuses %s, naming the field", (_name, document, field) => {
    expect(issues(document).map((issue) => issue.field)).toContain(field);
  });

  it("reports every issue of a document at once", () => {
    expect(
      issues({ tools: { deny: [""] }, defaultAction: "Maybe", arguments: { secretPatterns: ["x"] } }).map(
        (issue) => issue.field,
      ),
    ).toEqual(["tools.deny[0]", "arguments.secretPatterns[0]", "defaultAction"]);
  });

  it("refuses a pattern holding a lone surrogate, which has no UTF-8 form, and keeps a paired one", () => {
    expect(issues({ tools: { allow: ["\ud800"], deny: ["a\udc00*"] } })).toEqual([
      { field: "tools.allow[0]", rule: "must be well-formed Unicode text (it holds a lone surrogate)" },
      { field: "tools.deny[0]", rule: "must be well-formed Unicode text (it holds a lone surrogate)" },
    ]);
    expect(compiled({ tools: { allow: ["\ud83d\ude00*"] } }).tools.allow).toEqual(["\ud83d\ude00*"]);
  });

  it("accepts a policyId read back by GET and ignores it", () => {
    expect(compiled({ policyId: "sha256:whatever", mode: "Audit" })).toEqual({
      ...DEFAULT_L7_POLICY,
      mode: "Audit",
    });
  });

  it("compiles its own output to the same policy", () => {
    const policy = compiled({
      tools: { allow: ["read_*"], requireApproval: ["send_*"] },
      headers: { deny: [{ name: "mcp-param-region", values: ["cn-*", "ru-*"] }] },
      arguments: { secretPatterns: ["pem-blocks", "jwt"], maxPayloadBytes: 0 },
    });
    expect(compiled(JSON.parse(JSON.stringify(policy)))).toEqual(policy);
  });
});

describe("policyId", () => {
  const document = {
    tools: { allow: ["read_*"], deny: ["delete_*"] },
    arguments: { secretPatterns: ["aws-keys"], maxPayloadBytes: 1024 },
    defaultAction: "Allow",
    mode: "Enforce",
  };
  const reordered = {
    mode: "Enforce",
    defaultAction: "Allow",
    arguments: { maxPayloadBytes: 1024, secretPatterns: ["aws-keys"] },
    tools: { deny: ["delete_*"], allow: ["read_*"] },
  };

  it("is sha256: and 64 lowercase hex characters", () => {
    expect(policies().policyId(compiled(document))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("is stable under reordered keys and over defaults written out or left implicit", () => {
    const id = policies().policyId(compiled(document));
    expect(policies().policyId(compiled(reordered))).toBe(id);
    expect(
      policies().policyId(
        compiled({ ...document, headers: {}, tools: { ...document.tools, requireApproval: [] } }),
      ),
    ).toBe(id);
  });

  it("changes with any rule", () => {
    const id = policies().policyId(compiled(document));
    expect(policies().policyId(compiled({ ...document, mode: "Audit" }))).not.toBe(id);
    expect(policies().policyId(compiled({ ...document, tools: { allow: ["read_*", "list_*"] } }))).not.toBe(
      id,
    );
  });
});
