/** Unique identifiers (event ids, call ids, batch ids). */
export interface IdGenerator {
  /** A random UUID v4. */
  uuid(): string;
  /** `n` random bytes as lowercase hex. */
  hex(bytes: number): string;
}
