import { hash } from "node:crypto";
import canonicalize from "canonicalize";
import type { Hasher } from "../../app/ports/hasher.js";

/**
 * `Hasher` on node:crypto and the `canonicalize` package (RFC 8785 JSON Canonicalization Scheme).
 *
 * Guaranteed: equal JSON values give equal canonical text whatever their key order; `sha256Hex`
 * hashes the UTF-8 bytes. `canonicalJson` throws a TypeError for values JSON cannot represent
 * (undefined at the top level, NaN, Infinity, lone surrogates, cycles); properties whose value is
 * undefined are left out, as in `JSON.stringify`.
 */
export class NodeHasher implements Hasher {
  sha256Hex(text: string): string {
    // The one-shot `hash` (Node 20.12) costs a fraction of a `Hash` object: it runs on every
    // request that carries an API key.
    return hash("sha256", text, "hex");
  }

  canonicalJson(value: unknown): string {
    let text: string | undefined;
    try {
      text = canonicalize(value);
    } catch (error) {
      throw new TypeError(`value cannot be canonicalized: ${error instanceof Error ? error.message : error}`);
    }
    if (text === undefined) throw new TypeError("value cannot be canonicalized: not a JSON value");
    return text;
  }
}
