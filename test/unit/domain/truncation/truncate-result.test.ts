import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../../../../src/domain/limits/utf8-length.js";
import { continuationId, isContinuationId } from "../../../../src/domain/truncation/continuation-id.js";
import { type JsonValue, jsonBytes } from "../../../../src/domain/truncation/cut-json.js";
import { cutResult } from "../../../../src/domain/truncation/truncate-result.js";

const textResult = (text: string): JsonValue => ({ content: [{ type: "text", text }] });
const lines = (n: number) => Array.from({ length: n }, (_, i) => `row ${i}: ${"é".repeat(i % 7)}`).join("\n");

describe("cutResult", () => {
  it("keeps the JSON structure of a tool result when asked to", () => {
    const original = textResult(lines(200));
    const { kept, text } = cutResult(original, 500, {
      preserveJsonStructure: true,
      truncateOnLineBoundary: true,
    });
    expect(text).toBe(JSON.stringify(original));
    expect(jsonBytes(kept)).toBeLessThanOrEqual(500);
    const keptText = (kept as { content: { text: string }[] }).content[0]!.text;
    expect(lines(200).startsWith(keptText)).toBe(true);
    expect(keptText.endsWith("\n")).toBe(true);
  });

  it("keeps the first characters of the JSON text otherwise, ending on an escaped line feed", () => {
    const original = textResult(lines(200));
    const { kept, text } = cutResult(original, 500, {
      preserveJsonStructure: false,
      truncateOnLineBoundary: true,
    });
    expect(typeof kept).toBe("string");
    expect(text.startsWith(kept as string)).toBe(true);
    expect((kept as string).endsWith("\\n")).toBe(true);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(500);
  });

  it("cuts the deepest nesting JSON.stringify accepts, without overflowing the stack", () => {
    const nested = (depth: number) => {
      let value: JsonValue = "x".repeat(2_000);
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    const serializable = (depth: number) => {
      try {
        JSON.stringify(nested(depth));
        return true;
      } catch {
        return false;
      }
    };
    // The deepest value this engine can serialize: upstream results are never deeper.
    let low = 1;
    let high = 200_000;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (serializable(middle)) low = middle;
      else high = middle - 1;
    }
    // A hundredth below the limit found here: `cutResult` serializes the value itself, one frame
    // deeper, and how much stack a frame takes depends on how far the engine optimized it.
    const deep = nested(low - Math.ceil(low / 100));
    const { kept, text } = cutResult(deep, 1_000, {
      preserveJsonStructure: true,
      truncateOnLineBoundary: false,
    });
    expect(text).toBe(JSON.stringify(deep));
    expect(jsonBytes(kept)).toBeLessThanOrEqual(1_000);
  });

  it("property: kept text plus the continuation from its byte length reassembles the original", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.integer({ min: 2, max: 3_000 }),
        fc.boolean(),
        (value, share, lineBoundary) => {
          const { kept, text } = cutResult(value as JsonValue, share, {
            preserveJsonStructure: false,
            truncateOnLineBoundary: lineBoundary,
          });
          expect(typeof kept).toBe("string");
          expect(jsonBytes(kept)).toBeLessThanOrEqual(share);
          const stored = Buffer.from(text, "utf8");
          const rest = stored.subarray(utf8Length(kept as string)).toString("utf8");
          expect(`${kept as string}${rest}`).toBe(text);
          expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: with structure kept, the result parses and fits its share", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 4, max: 3_000 }), (value, share) => {
        const { kept } = cutResult(value as JsonValue, share, {
          preserveJsonStructure: true,
          truncateOnLineBoundary: true,
        });
        const serialized = JSON.stringify(kept);
        expect(JSON.stringify(JSON.parse(serialized))).toBe(serialized);
        expect(utf8Length(serialized)).toBeLessThanOrEqual(Math.max(share, jsonBytes(value)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("continuation ids", () => {
  it("are cont_<batch_id>_<call_index>_<8 hex>", () => {
    const id = continuationId("3f2b8c1e-0000-4000-8000-000000000000", 7, "0a1b2c3d");
    expect(id).toBe("cont_3f2b8c1e-0000-4000-8000-000000000000_7_0a1b2c3d");
    expect(isContinuationId(id)).toBe(true);
  });

  it("refuse a random part that is not 8 hex digits", () => {
    expect(() => continuationId("b", 0, "xyz")).toThrow(RangeError);
  });

  it("are told apart from other strings", () => {
    for (const other of [
      "",
      "cont_",
      "cont_b_0_0A1B2C3D",
      "cont_b_x_0a1b2c3d",
      "cont_b_0_0a1b2c3d:data",
      "nope",
    ])
      expect(isContinuationId(other)).toBe(false);
  });
});
