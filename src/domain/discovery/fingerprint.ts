/**
 * What a discovered server's fingerprint covers: its name, its definition and the group it asks to
 * join. Where it was found (`connection_info`: a container id, a file name) is left out, so a
 * container recreated from the same labels or a file renamed with the same content is the same
 * server and causes no update.
 */
export interface FingerprintSubject {
  readonly name: string;
  readonly definition: Readonly<Record<string, unknown>>;
  readonly group?: string | undefined;
}

/** Hex digits of the SHA-256 kept: 64 bits tell definitions apart for change detection. */
export const FINGERPRINT_LENGTH = 16;

/** The value whose canonical JSON is hashed (RFC 8785, so key order never matters). */
export function fingerprintInput(subject: FingerprintSubject): Record<string, unknown> {
  return { name: subject.name, definition: subject.definition, group: subject.group ?? null };
}

/** The fingerprint from the SHA-256 hex digest of `fingerprintInput`. */
export function fingerprintFromDigest(sha256Hex: string): string {
  return sha256Hex.slice(0, FINGERPRINT_LENGTH);
}
