/**
 * "Did you mean" for a refused key or value at any depth: the candidates are the keys and enum
 * values the configuration's JSON Schema allows at that place, the nearest one by edit distance.
 */
import { distance } from "fastest-levenshtein";
import type { JsonSchema } from "./json-schema.js";

/**
 * Edits allowed between a word and its suggestion: one for short words, then one more per four
 * characters, at most three (`loging` → `logging`, `WARN` → `WARNING` by prefix, not `host` → `port`).
 */
function maxDistance(word: string): number {
  return Math.min(3, 1 + Math.floor(Math.max(0, word.length - 4) / 4));
}

/** The candidate nearest to `word` within the bound (case-insensitive), or undefined. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: { candidate: string; cost: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const other = candidate.toLowerCase();
    // A prefix of a long enough candidate counts as one edit (`WARN` for `WARNING`).
    const prefix = lower.length >= 3 && (other.startsWith(lower) || lower.startsWith(other));
    const cost = prefix ? 1 : distance(lower, other);
    if (cost > maxDistance(word) && !prefix) continue;
    if (best === undefined || cost < best.cost) best = { candidate, cost };
  }
  return best?.candidate;
}

/** The node itself and the branches it is made of (`allOf`, `anyOf`, `oneOf`, `then`). */
function branches(node: JsonSchema): JsonSchema[] {
  const found: JsonSchema[] = [node];
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    for (const part of (node[key] ?? []) as JsonSchema[]) found.push(...branches(part));
  }
  if (typeof node.then === "object" && node.then !== null) found.push(...branches(node.then as JsonSchema));
  return found;
}

function children(node: JsonSchema, segment: PropertyKey): JsonSchema[] {
  const found: JsonSchema[] = [];
  for (const branch of branches(node)) {
    if (typeof segment === "number") {
      if (typeof branch.items === "object" && branch.items !== null) found.push(branch.items as JsonSchema);
      continue;
    }
    const key = String(segment);
    const properties = (branch.properties ?? {}) as Record<string, JsonSchema>;
    const patterns = (branch.patternProperties ?? {}) as Record<string, JsonSchema>;
    const byPattern = Object.entries(patterns).filter(([pattern]) => new RegExp(pattern).test(key));
    if (Object.hasOwn(properties, key)) found.push(properties[key] as JsonSchema);
    else if (byPattern.length > 0) found.push(...byPattern.map(([, schema]) => schema));
    else if (typeof branch.additionalProperties === "object" && branch.additionalProperties !== null)
      found.push(branch.additionalProperties as JsonSchema);
  }
  return found;
}

function nodesAt(schema: JsonSchema, path: readonly PropertyKey[]): JsonSchema[] {
  let nodes = [schema];
  for (const segment of path) nodes = nodes.flatMap((node) => children(node, segment));
  return nodes;
}

/** Keys the schema names at `path` (the mapping's own keys). */
export function keysAt(schema: JsonSchema, path: readonly PropertyKey[]): Set<string> {
  const keys = new Set<string>();
  for (const node of nodesAt(schema, path)) {
    for (const branch of branches(node))
      for (const key of Object.keys(branch.properties ?? {})) keys.add(key);
  }
  return keys;
}

/** String values an enum or constant allows at `path` (deprecated spellings left out). */
export function enumValuesAt(schema: JsonSchema, path: readonly PropertyKey[]): Set<string> {
  const values = new Set<string>();
  for (const node of nodesAt(schema, path)) {
    for (const branch of branches(node)) {
      if (branch.deprecated === true) continue;
      const listed = [...((branch.enum ?? []) as unknown[]), ...("const" in branch ? [branch.const] : [])];
      for (const value of listed) if (typeof value === "string") values.add(value);
    }
  }
  return values;
}

/**
 * A suggestion for a problem at `path`: the nearest known key when the last segment is an unknown
 * key, else the nearest enum value when `value` is a string the schema's enum refuses.
 */
export function suggestionFor(
  schema: JsonSchema,
  path: readonly PropertyKey[],
  options: { readonly unknownKey: boolean; readonly value: unknown },
): string | undefined {
  const last = path[path.length - 1];
  if (options.unknownKey) {
    if (typeof last !== "string") return undefined;
    return nearest(last, keysAt(schema, path.slice(0, -1)));
  }
  if (typeof options.value !== "string") return undefined;
  return nearest(options.value, enumValuesAt(schema, path));
}
