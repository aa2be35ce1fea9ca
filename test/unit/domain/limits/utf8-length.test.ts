import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../../../../src/domain/limits/utf8-length.js";

describe("utf8Length", () => {
  it("counts what Buffer.byteLength counts, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(utf8Length(text)).toBe(Buffer.byteLength(text, "utf8"));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ["", 0],
    ["ascii", 5],
    ["é", 2],
    ["€", 3],
    ["😀", 4],
    ["\ud83d", 3],
    ["\ud83dx", 4],
    ["\ude00\ud83d", 6],
  ])("%j is %i bytes", (text, bytes) => {
    expect(utf8Length(text)).toBe(bytes);
  });
});
