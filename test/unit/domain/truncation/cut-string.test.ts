import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../../../../src/domain/limits/utf8-length.js";
import { cutString, jsonStringBytes } from "../../../../src/domain/truncation/cut-string.js";

/** Any UTF-16 text: characters of every width, escapes, line feeds and lone surrogates. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\n", '"', "\\", "\t", "\u0001", "a", "é", "€", "😀", "\ud800", "\udc00"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 300,
});

const endsInsidePair = (kept: string, text: string) => {
  const last = kept.charCodeAt(kept.length - 1);
  const next = text.charCodeAt(kept.length);
  return last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
};

describe("jsonStringBytes", () => {
  it("property: equals the UTF-8 length of JSON.stringify", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(jsonStringBytes(text)).toBe(utf8Length(JSON.stringify(text)));
      }),
    );
  });
});

describe("cutString", () => {
  it("cuts after the last line feed of the room when that keeps at least half of it", () => {
    const text = "first line\nsecond line\nthird line that is long\n";
    expect(cutString(text, 2 + 30, "raw")).toBe("first line\nsecond line\n");
    // Each line feed takes two bytes escaped.
    expect(cutString(text, 2 + 30, "none")).toBe("first line\nsecond line\nthird");
  });

  it("cuts at the room when the last line feed would keep less than half of it", () => {
    const text = `a\n${"b".repeat(100)}`;
    // "a" and the escaped line feed take 3 of the 50 bytes inside the quotes.
    expect(cutString(text, 2 + 50, "raw")).toBe(`a\n${"b".repeat(47)}`);
  });

  it("counts escapes as JSON writes them", () => {
    expect(cutString('""""', 2 + 5, "none")).toBe('""');
    expect(cutString("\u0001\u0001", 2 + 11, "none")).toBe("\u0001");
  });

  it("ends on an escaped line feed in JSON text, never on an escaped backslash before an n", () => {
    const json = JSON.stringify({ text: "a fairly long first line\nab\\ncd" });
    const kept = cutString(json, jsonStringBytes(json) - 4, "json-escaped");
    expect(kept).toBe('{"text":"a fairly long first line\\n');
  });

  it("never splits a surrogate pair", () => {
    expect(cutString("ab😀", 2 + 5, "none")).toBe("ab");
  });

  it("property: keeps a prefix within the room, the longest one without line boundaries", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 2, max: 700 }), (text, room) => {
        const kept = cutString(text, room, "none");
        expect(text.startsWith(kept)).toBe(true);
        expect(jsonStringBytes(kept)).toBeLessThanOrEqual(room);
        expect(endsInsidePair(kept, text)).toBe(false);
        if (kept.length < text.length) {
          const next = text.slice(
            0,
            kept.length + (endsInsidePair(`${kept}${text[kept.length]}`, text) ? 2 : 1),
          );
          expect(jsonStringBytes(next)).toBeGreaterThan(room);
        }
      }),
    );
  });

  it("property: with line boundaries, the prefix ends on a line feed whenever one is late enough", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 2, max: 700 }), (text, room) => {
        const hard = cutString(text, room, "none");
        const kept = cutString(text, room, "raw");
        expect(hard.startsWith(kept)).toBe(true);
        expect(jsonStringBytes(kept)).toBeLessThanOrEqual(room);
        const lastBreak = hard.lastIndexOf("\n") + 1;
        if (hard.length < text.length && lastBreak > 0 && lastBreak * 2 >= hard.length) {
          expect(kept).toBe(hard.slice(0, lastBreak));
        } else expect(kept).toBe(hard);
      }),
    );
  });
});
