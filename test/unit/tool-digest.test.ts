import { describe, expect, it } from "vitest";
import { NodeHasher } from "../../src/adapters/system/node-hasher.js";
import type { ToolSchema } from "../../src/domain/server/server-spec.js";
import { digestSubject } from "../../src/domain/server/tool-digest.js";

const hasher = new NodeHasher();
const digest = (tool: ToolSchema) => hasher.sha256Hex(hasher.canonicalJson(digestSubject(tool)));

const tool: ToolSchema = {
  name: "add",
  description: "Add two numbers.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  outputSchema: { type: "object", properties: { result: { type: "number" } } },
};

describe("tool digest", () => {
  it("is 64 lowercase hex characters", () => {
    expect(digest(tool)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is the SHA-256 of the RFC 8785 text of the subject", () => {
    const subject = { name: "t", inputSchema: { b: 1, a: [true, null, "é"] } };
    expect(hasher.canonicalJson(subject)).toBe('{"inputSchema":{"a":[true,null,"é"],"b":1},"name":"t"}');
    // Known SHA-256 of the empty string and of "abc".
    expect(hasher.sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hasher.sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it.each([
    ["null", null],
    ["an empty object", {}],
    ["an empty array", []],
    ["an empty string", ""],
  ])("treats a field set to %s like an absent one", (_label, empty) => {
    const bare: ToolSchema = { name: "add", inputSchema: tool.inputSchema };
    const withDescription = { ...bare, description: empty } as unknown as ToolSchema;
    const withOutput = { ...bare, outputSchema: empty } as unknown as ToolSchema;
    expect(digest(withDescription)).toBe(digest(bare));
    expect(digest(withOutput)).toBe(digest(bare));
  });

  it("does not depend on key order, at any depth", () => {
    const reordered: ToolSchema = {
      outputSchema: { properties: { result: { type: "number" } }, type: "object" },
      inputSchema: { properties: { b: { type: "number" }, a: { type: "number" } }, type: "object" },
      description: "Add two numbers.",
      name: "add",
    };
    expect(digest(reordered)).toBe(digest(tool));
  });

  it("changes when the description changes", () => {
    expect(digest({ ...tool, description: "Add two numbers!" })).not.toBe(digest(tool));
  });

  it("changes when the input schema changes", () => {
    const changed = { ...tool, inputSchema: { ...tool.inputSchema, required: ["a"] } };
    expect(digest(changed)).not.toBe(digest(tool));
  });

  it("refuses a tool without a name or with an empty name", () => {
    expect(() => digest({ ...tool, name: "" })).toThrow(TypeError);
    expect(() => digest({ ...tool, name: undefined } as unknown as ToolSchema)).toThrow(TypeError);
  });

  it("refuses values JSON cannot represent", () => {
    expect(() => hasher.canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => hasher.canonicalJson(undefined)).toThrow(TypeError);
  });
});
