/** Content hashing for digests and fingerprints. */
export interface Hasher {
  /** SHA-256 of the UTF-8 text, 64 lowercase hex characters. */
  sha256Hex(text: string): string;
  /** RFC 8785 canonical JSON of a value. */
  canonicalJson(value: unknown): string;
}
