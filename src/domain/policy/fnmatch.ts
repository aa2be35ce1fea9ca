/**
 * Python `fnmatch.fnmatchcase` semantics for tool-name globs: `*` any run, `?` one character,
 * `[seq]` one of, `[!seq]` none of; everything else literal and case-sensitive. Compiled patterns
 * are cached: policies are matched on the call path.
 */
const cache = new Map<string, RegExp>();
/** Patterns come from configuration and REST; the cache is bounded so a flood cannot grow it. */
const CACHE_LIMIT = 10_000;

export function fnmatch(name: string, pattern: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${translate(pattern)}$`, "s");
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, regex);
  }
  return regex.test(name);
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => fnmatch(name, pattern));
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

/** Pattern to regular-expression source, following CPython's `fnmatch.translate`. */
function translate(pattern: string): string {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i++]!;
    if (c === "*") {
      while (pattern[i] === "*") i++;
      out += ".*";
    } else if (c === "?") {
      out += ".";
    } else if (c === "[") {
      let j = i;
      if (pattern[j] === "!") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i, j);
      i = j + 1;
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      const escaped = body.replace(/\\/g, "\\\\").replace(/\^/g, "\\^");
      out += negate ? `[^${escaped}]` : `[${escaped}]`;
    } else {
      out += escapeRegExp(c);
    }
  }
  return out;
}

/** Whether `pattern` is a usable fnmatch pattern (it compiles). */
export function isValidPattern(pattern: string): boolean {
  try {
    fnmatch("", pattern);
    return true;
  } catch {
    return false;
  }
}
