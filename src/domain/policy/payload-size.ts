import { utf8Length } from "../limits/utf8-length.js";

/**
 * Size of a value once JSON-encoded, in UTF-8 bytes; null when it cannot be encoded (a cycle, a
 * BigInt, a throwing `toJSON`) or encodes to nothing (`undefined`, a function). Callers that limit
 * sizes treat null as "too large": a payload that cannot be measured is refused.
 */
export function jsonByteLength(value: unknown): number | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return null;
  }
  return typeof text === "string" ? utf8Length(text) : null;
}
