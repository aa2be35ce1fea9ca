import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextNestsDeeper, jsonValueNestsDeeper } from "../../../../src/domain/limits/json-depth.js";

/** The depth of a parsed value, by definition (recursive: test values stay shallow). */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

const nestedArrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("jsonTextNestsDeeper", () => {
  it("agrees with the depth of the parsed value, strings full of brackets, quotes and backslashes included", () => {
    const tricky = fc.string({
      unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", "\u00e9", "\u{1f600}"),
    });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        tricky,
        fc.integer(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(tricky, tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), fc.boolean(), (item, limit, spaced) => {
        const text = JSON.stringify(item, null, spaced ? 1 : undefined);
        expect(jsonTextNestsDeeper(text, limit)).toBe(depthOf(item) > limit);
        expect(jsonValueNestsDeeper(item, limit)).toBe(depthOf(item) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it("counts the levels exactly at the limit", () => {
    expect(jsonTextNestsDeeper(nestedArrays(64), 64)).toBe(false);
    expect(jsonTextNestsDeeper(nestedArrays(65), 64)).toBe(true);
    expect(jsonTextNestsDeeper(nestedObjects(64), 64)).toBe(false);
    expect(jsonTextNestsDeeper(nestedObjects(65), 64)).toBe(true);
    expect(jsonTextNestsDeeper('"just a string"', 8)).toBe(false);
    expect(jsonTextNestsDeeper("12", 8)).toBe(false);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const inString = JSON.stringify({ a: `${"[".repeat(500)}\\"${"{".repeat(500)}` });
    expect(jsonTextNestsDeeper(inString, 8)).toBe(false);
    // `\\"` closes the string: the brackets after it count.
    expect(jsonTextNestsDeeper(`["\\\\", ${nestedArrays(9)}]`, 9)).toBe(true);
    expect(jsonTextNestsDeeper(`["\\"", ${nestedArrays(8)}]`, 9)).toBe(false);
  });

  it("reads nesting far deeper than any stack allows, without recursion", () => {
    expect(jsonTextNestsDeeper(nestedArrays(200_000), 1000)).toBe(true);
    expect(jsonValueNestsDeeper(JSON.parse(nestedArrays(200_000)), 1000)).toBe(true);
    expect(jsonValueNestsDeeper(JSON.parse(nestedObjects(50_000)), 50_000)).toBe(false);
  });

  it("answers false for an unterminated string (the parser refuses the text)", () => {
    expect(jsonTextNestsDeeper(`["${nestedArrays(20)}`, 8)).toBe(false);
  });
});
