import { describe, expect, it } from "vitest";
import {
  decodeHeaderValue,
  paramHeaderProblems,
  paramHeaderVerdict,
  scanHeaderAnnotations,
} from "../../../src/domain/policy/param-headers.js";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    sql: { type: "string" },
    options: {
      type: "object",
      properties: {
        priority: { type: "integer", "x-mcp-header": "Priority" },
        dry_run: { type: "boolean", "x-mcp-header": "DryRun" },
      },
    },
    rows: {
      type: "array",
      items: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id" } } },
    },
  },
};

const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

describe("x-mcp-header annotations", () => {
  it("are found through properties chains only, with their paths", () => {
    expect(scanHeaderAnnotations(schema)).toEqual({
      ok: true,
      annotations: [
        { name: "Region", path: ["region"] },
        { name: "Priority", path: ["options", "priority"] },
        { name: "DryRun", path: ["options", "dry_run"] },
      ],
    });
    expect(scanHeaderAnnotations({ type: "object" })).toEqual({ ok: true, annotations: [] });
    expect(scanHeaderAnnotations(null)).toEqual({ ok: true, annotations: [] });
  });

  it.each([
    ["an empty name", { a: { type: "string", "x-mcp-header": "" } }, "non-empty"],
    ["a name that is not a string", { a: { type: "string", "x-mcp-header": 7 } }, "non-empty"],
    ["a name with a space", { a: { type: "string", "x-mcp-header": "My Region" } }, "not an HTTP token"],
    ["a name with a colon", { a: { type: "string", "x-mcp-header": "a:b" } }, "not an HTTP token"],
    ["a name with a line feed", { a: { type: "string", "x-mcp-header": "a\nb" } }, "not an HTTP token"],
    ["a non-ASCII name", { a: { type: "string", "x-mcp-header": "Région" } }, "not an HTTP token"],
    [
      "two names equal but for case",
      { a: { type: "string", "x-mcp-header": "Zone" }, b: { type: "string", "x-mcp-header": "zone" } },
      "declared twice",
    ],
    ["a number parameter", { a: { type: "number", "x-mcp-header": "N" } }, "type string, integer or boolean"],
    [
      "an object parameter",
      { a: { type: "object", "x-mcp-header": "O" } },
      "type string, integer or boolean",
    ],
    ["a parameter without a type", { a: { "x-mcp-header": "T" } }, "type string, integer or boolean"],
  ])("are invalid with %s", (_name, properties, problem) => {
    const scan = scanHeaderAnnotations({ type: "object", properties });
    expect(scan.ok).toBe(false);
    expect(!scan.ok && scan.problem).toContain(problem);
  });
});

describe("Mcp-Param header values", () => {
  it.each([
    ["plain ASCII stays as sent", "us-west1", "us-west1"],
    ["surrounding whitespace is not part of the value", "  us-west1 ", "us-west1"],
    ["a Base64 value is decoded as UTF-8", b64("Hello, 世界"), "Hello, 世界"],
    ["Base64 keeps spaces HTTP would drop", b64(" padded "), " padded "],
    ["Base64 carries control characters", b64("line1\nline2"), "line1\nline2"],
    ["an empty Base64 value is the empty string", "=?base64??=", ""],
    ["upper-case markers are not Base64", "=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?="],
    ["a value missing the closing marker is literal", "=?base64?SGVsbG8=", "=?base64?SGVsbG8="],
  ])("%s", (_name, raw, decoded) => {
    expect(decodeHeaderValue(raw)).toBe(decoded);
  });

  it.each([
    ["characters outside Base64", "=?base64?SGV*bG8=?="],
    ["a length that is not a multiple of four", "=?base64?SGVsbG8?="],
    ["bytes that are not UTF-8", `=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=`],
  ])("are undecodable with %s", (_name, raw) => {
    expect(decodeHeaderValue(raw)).toBeNull();
  });
});

describe("Mcp-Param headers against the arguments", () => {
  const scan = scanHeaderAnnotations(schema);
  const annotations = scan.ok ? scan.annotations : [];
  const args = { region: "us-west1", sql: "select 1", options: { priority: 42, dry_run: false } };
  const problems = (headers: Record<string, string>, a: Record<string, unknown> = args) =>
    paramHeaderProblems(annotations, a, headers).map((p) => [p.kind, p.header]);

  it("accept headers equal to the arguments, names in any case, integers by value", () => {
    expect(
      problems({ "mcp-param-region": "us-west1", "MCP-PARAM-PRIORITY": "42.0", "mcp-param-dryrun": "false" }),
    ).toEqual([]);
    expect(problems({ "mcp-param-region": b64("us-west1"), "mcp-param-priority": "42" })).toEqual([
      ["unverifiable", "Mcp-Param-DryRun"],
    ]);
  });

  it("call a differing value, a header without an argument and a repeated header mismatches", () => {
    expect(problems({ "mcp-param-region": "eu-west1" })).toContainEqual(["mismatch", "Mcp-Param-Region"]);
    expect(problems({ "mcp-param-dryrun": "False" })).toContainEqual(["mismatch", "Mcp-Param-DryRun"]);
    expect(problems({ "mcp-param-priority": "41" })).toContainEqual(["mismatch", "Mcp-Param-Priority"]);
    expect(problems({ "mcp-param-priority": "4.2e1" })).not.toContainEqual([
      "mismatch",
      "Mcp-Param-Priority",
    ]);
    expect(problems({ "mcp-param-region": "us-west1" }, { sql: "x" })).toEqual([
      ["mismatch", "Mcp-Param-Region"],
    ]);
    expect(problems({ "mcp-param-region": "us-west1" }, { region: null })).toEqual([
      ["mismatch", "Mcp-Param-Region"],
    ]);
    expect(problems({ "mcp-param-region": "us-west1" }, { region: { nested: true } })).toEqual([
      ["mismatch", "Mcp-Param-Region"],
    ]);
  });

  it("call a missing header, an undecodable one and an unannotated one unverifiable", () => {
    expect(problems({})).toEqual([
      ["unverifiable", "Mcp-Param-Region"],
      ["unverifiable", "Mcp-Param-Priority"],
      ["unverifiable", "Mcp-Param-DryRun"],
    ]);
    expect(problems({ "mcp-param-region": "=?base64?***?=" }, { region: "x" })).toEqual([
      ["unverifiable", "Mcp-Param-Region"],
    ]);
    expect(problems({ "mcp-param-id": "1" }, {})).toEqual([["unverifiable", "Mcp-Param-id"]]);
    // No argument, no header: nothing to verify.
    expect(problems({}, {})).toEqual([]);
  });

  it("refuse a mismatch always, and unverifiable headers only when validation is required", () => {
    expect(paramHeaderVerdict(schema, args, { "mcp-param-region": "eu" }, false)?.kind).toBe("mismatch");
    expect(paramHeaderVerdict(schema, args, {}, false)).toBeNull();
    expect(paramHeaderVerdict(schema, args, {}, true)?.header).toBe("Mcp-Param-Region");
    expect(paramHeaderVerdict({ type: "object" }, {}, { "mcp-param-x": "1" }, false)).toBeNull();
    expect(paramHeaderVerdict({ type: "object" }, {}, { "mcp-param-x": "1" }, true)?.kind).toBe(
      "unverifiable",
    );
    expect(paramHeaderVerdict({ type: "object" }, {}, { "x-api-key": "mcp_x" }, true)).toBeNull();
  });

  it("never put header or argument values in the reason", () => {
    const refusal = paramHeaderVerdict(
      schema,
      { region: "secret-a" },
      { "mcp-param-region": "secret-b" },
      false,
    );
    expect(refusal?.reason).not.toMatch(/secret/);
  });
});

describe("scanHeaderAnnotations keeps its answer per schema object", () => {
  it("answers a schema seen before from memory, and a new listing's schema anew", () => {
    const schema = { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } };
    const first = scanHeaderAnnotations(schema);
    expect(scanHeaderAnnotations(schema)).toBe(first);
    const relisted = { type: "object", properties: { region: { type: "number", "x-mcp-header": "Region" } } };
    expect(scanHeaderAnnotations(relisted)).toMatchObject({ ok: false });
    expect(first).toMatchObject({ ok: true, annotations: [{ name: "Region", path: ["region"] }] });
  });
});
