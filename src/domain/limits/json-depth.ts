/**
 * Nesting depth of JSON: how many arrays and objects enclose the innermost value (`1` and `"a"` are
 * at depth 0, `[]` and `{}` at 1, `{"a":[1]}` at 2). Much of the code that walks a value recurses
 * (serializers, schema validators, canonicalization, truncation), so a value nested deep enough
 * overflows the stack: input is bounded before anything walks it, and both checks below use no
 * recursion.
 */

/**
 * The deepest nesting the gateway relays from an MCP server (tool results and schemas): as deep
 * as the client limit `http.max_json_depth` may be set, and far from the depth (a few thousand
 * levels) at which the gateway's own walkers would exhaust the stack.
 */
export const MAX_RELAYED_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests deeper than `maxDepth`, read without parsing it. Exact for valid JSON;
 * for text that is not JSON the answer means nothing (the parser refuses it anyway).
 *
 * A value cannot nest deeper than the number of `{` and `[` in its text, so text with at most
 * `maxDepth` of them (nearly every message: a tool call has a handful) is answered by counting
 * them with `indexOf`, which runs at memory speed; otherwise the text is scanned once, skipping
 * strings (whose brackets do not count) from quote to unescaped quote.
 */
export function jsonTextNestsDeeper(text: string, maxDepth: number): boolean {
  if (fewerOpenersThan(text, maxDepth + 1)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds fewer than `count` opening braces and brackets in all (strings included). */
function fewerOpenersThan(text: string, count: number): boolean {
  let seen = 0;
  for (const opener of ["{", "["]) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) {
      if (++seen >= count) return false;
    }
  }
  return true;
}

/** The index of the quote closing the string opened at `open`, or -1 when it is never closed. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return -1;
    // Escaped when an odd run of backslashes precedes it (`\"`, but not `\\"`).
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Whether a parsed value (plain arrays and objects, as `JSON.parse` makes them) nests deeper than
 * `maxDepth`. Walks with an explicit stack, stopping at the first container past the limit.
 */
export function jsonValueNestsDeeper(value: unknown, maxDepth: number): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const item = pending.pop();
    const depth = (depths.pop() ?? 0) + 1;
    if (typeof item !== "object" || item === null) continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) {
        pending.push(child);
        depths.push(depth);
      }
    }
  }
  return false;
}

/** What a refusal says: the limit and the configuration key that sets it. */
export function jsonDepthRefusal(maxDepth: number): string {
  return `nesting deeper than ${maxDepth} levels (http.max_json_depth)`;
}
