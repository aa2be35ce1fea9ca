/**
 * Where a line ends in the text being cut: a raw line feed (plain text), or the two characters `\n`
 * of a JSON escape (the text is itself JSON, where line feeds only appear escaped).
 */
export type LineBreaks = "raw" | "json-escaped" | "none";

/**
 * Bytes the string occupies as a JSON string literal, quotes included, measured the way
 * `JSON.stringify` writes it: `"` and `\` and the short control escapes take 2 bytes, other control
 * characters and lone surrogates 6 (`\uXXXX`), everything else its UTF-8 length.
 */
export function jsonStringBytes(text: string): number {
  return 2 + escapedPrefixEnd(text, Number.POSITIVE_INFINITY).bytes;
}

/**
 * The longest prefix of `text` whose JSON string literal (quotes included) takes at most
 * `maxBytes`, ended after the last line break when that keeps at least half of the longest prefix
 * (a break further back would waste most of the room). Never splits a surrogate pair.
 * `kept + text.slice(kept.length) === text` always holds.
 */
export function cutString(text: string, maxBytes: number, lineBreaks: LineBreaks): string {
  const { end } = escapedPrefixEnd(text, maxBytes - 2);
  if (end >= text.length || lineBreaks === "none") return text.slice(0, end);
  const lineEnd = lineBreaks === "raw" ? text.lastIndexOf("\n", end - 1) + 1 : lastEscapedLineEnd(text, end);
  return text.slice(0, lineEnd > 0 && lineEnd <= end && lineEnd * 2 >= end ? lineEnd : end);
}

/** Index after the last unescaped `\n` escape ending at or before `end`; 0 when there is none. */
function lastEscapedLineEnd(text: string, end: number): number {
  let at = text.lastIndexOf("\\n", end - 2);
  while (at >= 0) {
    // The backslash starts an escape only when the run of backslashes ending at it is odd.
    let run = 1;
    while (at - run >= 0 && text.charCodeAt(at - run) === 0x5c) run++;
    if (run % 2 === 1) return at + 2;
    at = text.lastIndexOf("\\n", at - 1);
  }
  return 0;
}

/** The end index of the longest prefix whose escaped form fits `room` bytes, and those bytes. */
function escapedPrefixEnd(text: string, room: number): { end: number; bytes: number } {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let width: number;
    let units = 1;
    if (code === 0x22 || code === 0x5c) width = 2;
    else if (code < 0x20) width = SHORT_ESCAPES.has(code) ? 2 : 6;
    else if (code < 0x80) width = 1;
    else if (code < 0x800) width = 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 4;
        units = 2;
      } else width = 6;
    } else if (code >= 0xdc00 && code <= 0xdfff) width = 6;
    else width = 3;
    if (bytes + width > room) break;
    bytes += width;
    i += units;
  }
  return { end: i, bytes };
}

/** `\b \t \n \f \r`: the control characters JSON writes as two-byte escapes. */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
