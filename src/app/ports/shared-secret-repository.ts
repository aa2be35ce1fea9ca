/**
 * Secrets every replica of a store shares (the key `requestState` is signed with), made by
 * whichever replica needs one first.
 *
 * Guaranteed: every caller of `obtain` with the same name gets the same value, whichever replica
 * calls and in whatever order; the first value written is kept for good.
 */
export interface SharedSecretRepository {
  /** The secret named `name`: the one stored, or `candidate`, stored now when there was none. */
  obtain(name: string, candidate: string): Promise<string>;
}
