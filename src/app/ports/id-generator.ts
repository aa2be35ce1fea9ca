/** Unique identifiers (event ids, call ids, batch ids). */
export interface IdGenerator {
  /** A random UUID v4. */
  uuid(): string;
  /**
   * A UUID v7 (RFC 9562): the first 48 bits are the time of creation in milliseconds, the other
   * 74 free bits random. Ids made in a later millisecond sort after earlier ones, so a store's
   * unique index on them grows at one end instead of at random pages (event ids).
   */
  timeOrderedUuid(): string;
  /** `n` random bytes as lowercase hex. */
  hex(bytes: number): string;
}
