import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sliceWindow, utf8Slice } from "../../../../src/domain/truncation/utf8-slice.js";

/** Reads a slice the way the fetch operation does: a window of the stored bytes, then snapped. */
function readSlice(stored: Buffer, offset: number, limit: number) {
  const window = sliceWindow(offset, limit);
  const bytes = stored.subarray(Math.min(window.start, stored.length), Math.min(window.end, stored.length));
  const { start, end } = utf8Slice(bytes, window.start, offset, limit, stored.length);
  return { start, end, data: stored.subarray(start, end).toString("utf8") };
}

/** Well-formed text (what JSON.stringify writes): characters of 1 to 4 UTF-8 bytes. */
const text = fc.string({ unit: "grapheme", maxLength: 200 });

describe("utf8Slice", () => {
  it("moves a start inside a character back to its first byte", () => {
    const stored = Buffer.from("a€b", "utf8");
    expect(readSlice(stored, 2, 10)).toEqual({ start: 1, end: 5, data: "€b" });
  });

  it("ends before a character the limit would split", () => {
    expect(readSlice(Buffer.from("a€b", "utf8"), 0, 2)).toEqual({ start: 0, end: 1, data: "a" });
  });

  it("takes one whole character when the limit is smaller than it", () => {
    expect(readSlice(Buffer.from("😀x", "utf8"), 0, 1)).toEqual({ start: 0, end: 4, data: "😀" });
  });

  it("answers an empty slice at the end past the stored size", () => {
    expect(readSlice(Buffer.from("abc"), 10, 5)).toEqual({ start: 3, end: 3, data: "" });
  });

  it("property: consecutive slices reassemble the text exactly, none longer than its limit", () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (s, limits) => {
          const stored = Buffer.from(s, "utf8");
          let offset = 0;
          let out = "";
          for (let i = 0; offset < stored.length; i++) {
            const limit = limits[i % limits.length]!;
            const slice = readSlice(stored, offset, limit);
            expect(slice.start).toBe(offset);
            expect(slice.end).toBeGreaterThan(slice.start);
            if (limit >= 4) expect(slice.end - slice.start).toBeLessThanOrEqual(limit);
            out += slice.data;
            offset = slice.end;
          }
          expect(out).toBe(s);
        },
      ),
    );
  });

  it("property: any offset starts at most 3 bytes back, on a character boundary", () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 2_000 }), fc.integer({ min: 1, max: 100 }), (s, offset, limit) => {
        const stored = Buffer.from(s, "utf8");
        const slice = readSlice(stored, offset, limit);
        if (offset >= stored.length) {
          expect(slice).toEqual({ start: stored.length, end: stored.length, data: "" });
          return;
        }
        expect(offset - slice.start).toBeGreaterThanOrEqual(0);
        expect(offset - slice.start).toBeLessThanOrEqual(3);
        expect(Buffer.from(slice.data, "utf8").equals(stored.subarray(slice.start, slice.end))).toBe(true);
      }),
    );
  });
});
