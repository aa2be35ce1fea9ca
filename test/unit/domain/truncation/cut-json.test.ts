import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutJson, type JsonValue, jsonBytes } from "../../../../src/domain/truncation/cut-json.js";

/** True when `kept` is a structural prefix of `original` (see `cutJson`). */
function isStructuralPrefix(kept: JsonValue, original: JsonValue): boolean {
  if (typeof kept === "string") return typeof original === "string" && original.startsWith(kept);
  if (Array.isArray(kept)) {
    if (!Array.isArray(original) || kept.length > original.length) return false;
    return kept.every((item, i) =>
      i < kept.length - 1
        ? JSON.stringify(item) === JSON.stringify(original[i])
        : isStructuralPrefix(item, original[i]!),
    );
  }
  if (kept !== null && typeof kept === "object") {
    if (original === null || typeof original !== "object" || Array.isArray(original)) return false;
    const keys = Object.keys(kept);
    const originalKeys = Object.keys(original);
    if (keys.some((key, i) => key !== originalKeys[i])) return false;
    return keys.every((key, i) =>
      i < keys.length - 1
        ? JSON.stringify(kept[key]) === JSON.stringify(original[key])
        : isStructuralPrefix(kept[key]!, original[key]!),
    );
  }
  return JSON.stringify(kept) === JSON.stringify(original) || (kept === null && original !== null);
}

const toolResult = (text: string) => ({ content: [{ type: "text", text }], isError: false });

describe("cutJson", () => {
  it("keeps a value that fits unchanged", () => {
    const value = { a: [1, 2, 3], b: "text" };
    expect(cutJson(value, jsonBytes(value), true)).toBe(value);
  });

  it("cuts a tool result's text inside its content block, keeping the block's type", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const kept = cutJson(toolResult(lines), 200, true) as { content: { type: string; text: string }[] };
    expect(kept.content[0]!.type).toBe("text");
    expect(lines.startsWith(kept.content[0]!.text)).toBe(true);
    expect(kept.content[0]!.text.endsWith("\n")).toBe(true);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(200);
  });

  it("cuts arrays at element boundaries, keeping whole elements first", () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const kept = cutJson({ rows }, 120, true) as { rows: unknown[] };
    expect(kept.rows.length).toBeGreaterThan(1);
    expect(kept.rows.slice(0, -1)).toEqual(rows.slice(0, kept.rows.length - 1));
    expect(jsonBytes(kept)).toBeLessThanOrEqual(120);
  });

  it("drops what comes after the first member that does not fit", () => {
    const value = { big: "x".repeat(100), small: 1 };
    expect(cutJson(value, 30, false)).toEqual({ big: "x".repeat(30 - 10) });
  });

  it("keeps a member named __proto__ as a member", () => {
    const value = JSON.parse(
      '{"__proto__": {"x": 1}, "long": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}',
    ) as JsonValue;
    const kept = cutJson(value, 40, false);
    expect(Object.keys(kept as object)).toContain("__proto__");
    expect(JSON.stringify(kept).startsWith('{"__proto__":{"x":1}')).toBe(true);
  });

  it("answers the empty form when nothing fits", () => {
    expect(cutJson([12345, 6], 3, true)).toEqual([]);
    expect(cutJson({ a: 1 }, 2, true)).toEqual({});
  });

  const budgets = fc.integer({ min: 4, max: 2_000 });

  it("property: the kept value parses, fits its share, and is a structural prefix", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), budgets, fc.boolean(), (value, share, lines) => {
        const original = value as JsonValue;
        const kept = cutJson(original, share, lines);
        const text = JSON.stringify(kept);
        expect(JSON.stringify(JSON.parse(text))).toBe(text);
        if (jsonBytes(original) > share) expect(jsonBytes(kept)).toBeLessThanOrEqual(share);
        else expect(kept).toBe(original);
        expect(isStructuralPrefix(kept, original)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
