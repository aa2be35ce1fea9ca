import { utf8Length } from "../limits/utf8-length.js";
import { cutString } from "./cut-string.js";

/** A value as JSON has it (what `JSON.parse` returns). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** UTF-8 bytes of the value as `JSON.stringify` writes it. */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? "null");
}

/**
 * A structural prefix of `value` whose JSON text takes at most `maxBytes`: arrays keep their first
 * elements and objects their first members (in order) whole, the first one that does not fit whole
 * is cut the same way in the room left (when something of it fits), and nothing after it is kept.
 * Strings are cut with {@link cutString} (on a line boundary when `lineBoundary`); numbers, booleans
 * and null are kept whole or not at all. No marker is added: the caller flags the cut.
 *
 * Guarantees: the result serializes to valid JSON; each array in it is a prefix of the original
 * array (its last element possibly cut), each object keeps a leading run of the original members,
 * each string is a prefix of the original. When even the empty form does not fit (`maxBytes` under
 * 2, or under 4 for a number, boolean or null), the smallest value of the same kind is returned
 * (`""`, `[]`, `{}`, `null`).
 */
export function cutJson(value: JsonValue, maxBytes: number, lineBoundary: boolean): JsonValue {
  if (jsonBytes(value) <= maxBytes) return value;
  return cutValue(value, maxBytes, lineBoundary) ?? emptyLike(value);
}

function cutValue(value: JsonValue, room: number, lineBoundary: boolean): JsonValue | undefined {
  if (typeof value === "string") {
    return room >= 2 ? cutString(value, room, lineBoundary ? "raw" : "none") : undefined;
  }
  if (value === null || typeof value !== "object") return jsonBytes(value) <= room ? value : undefined;
  if (room < 2) return undefined;
  return Array.isArray(value) ? cutArray(value, room, lineBoundary) : cutObject(value, room, lineBoundary);
}

function cutArray(items: JsonValue[], room: number, lineBoundary: boolean): JsonValue[] {
  const kept: JsonValue[] = [];
  let used = 2;
  for (const item of items) {
    const separator = kept.length > 0 ? 1 : 0;
    const size = jsonBytes(item);
    if (used + separator + size <= room) {
      kept.push(item);
      used += separator + size;
      continue;
    }
    const part = cutValue(item, room - used - separator, lineBoundary);
    if (part !== undefined && !isEmpty(part)) kept.push(part);
    break;
  }
  return kept;
}

function cutObject(record: { [key: string]: JsonValue }, room: number, lineBoundary: boolean) {
  const kept: [string, JsonValue][] = [];
  let used = 2;
  for (const [key, item] of Object.entries(record)) {
    const separator = kept.length > 0 ? 1 : 0;
    const keyBytes = jsonBytes(key) + 1;
    const size = jsonBytes(item);
    if (used + separator + keyBytes + size <= room) {
      kept.push([key, item]);
      used += separator + keyBytes + size;
      continue;
    }
    const part = cutValue(item, room - used - separator - keyBytes, lineBoundary);
    if (part !== undefined && !isEmpty(part)) kept.push([key, part]);
    break;
  }
  // `fromEntries` defines own properties, so a member named `__proto__` stays a member.
  return Object.fromEntries(kept) as { [key: string]: JsonValue };
}

/** A cut that kept nothing of a string or container says nothing: it is left out rather than kept. */
function isEmpty(value: JsonValue): boolean {
  if (typeof value === "string") return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  return value !== null && typeof value === "object" && Object.keys(value).length === 0;
}

function emptyLike(value: JsonValue): JsonValue {
  if (typeof value === "string") return "";
  if (Array.isArray(value)) return [];
  return value !== null && typeof value === "object" ? {} : null;
}
