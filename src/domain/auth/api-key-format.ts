/**
 * The shape of API keys (spec 1 "API key", spec 2 §5): `mcp_` followed by the URL-safe base64
 * (RFC 4648 §5, no padding) of 32 random bytes, 43 characters. Only the key's SHA-256 is stored.
 */
export const API_KEY_PREFIX = "mcp_";

/** 256 bits: a key cannot be guessed, and its SHA-256 alone is safe to store. */
export const API_KEY_RANDOM_BYTES = 32;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A raw key from random bytes given as hex (an even number of hex digits). */
export function rawApiKeyFromHex(hex: string): string {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(hex)) throw new RangeError("expected hex bytes");
  const bytes: number[] = [];
  for (let index = 0; index < hex.length; index += 2)
    bytes.push(Number.parseInt(hex.slice(index, index + 2), 16));
  return `${API_KEY_PREFIX}${base64Url(bytes)}`;
}

/** URL-safe base64 without padding. */
function base64Url(bytes: readonly number[]): string {
  let out = "";
  for (let index = 0; index < bytes.length; index += 3) {
    const a = bytes[index] ?? 0;
    const b = bytes[index + 1];
    const c = bytes[index + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64URL[(triple >> 18) & 63];
    out += BASE64URL[(triple >> 12) & 63];
    if (b !== undefined) out += BASE64URL[(triple >> 6) & 63];
    if (c !== undefined) out += BASE64URL[triple & 63];
  }
  return out;
}
