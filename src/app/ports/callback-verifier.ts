/** Header carrying a callback's signature: `sha256=<64 lowercase hex>`. */
export const SIGNATURE_HEADER = "x-airlock-signature";
/** Header carrying the signing time, epoch seconds as a decimal integer. */
export const TIMESTAMP_HEADER = "x-airlock-timestamp";

/** A chat tool's callback as received, before anything in it is trusted. */
export interface SignedCallback {
  /** The raw request body, exactly as signed. */
  readonly body: string;
  /** The timestamp header (epoch seconds, decimal), or undefined when absent. */
  readonly timestamp: string | undefined;
  /** The signature header, or undefined when absent. */
  readonly signature: string | undefined;
  /** Epoch seconds, now. */
  readonly now: number;
}

export type CallbackVerdict =
  /** `channel`: the channel whose shared secret signed the body. */
  | { readonly ok: true; readonly channel: string }
  | { readonly ok: false; readonly reason: "missing" | "stale" | "mismatch" };

/**
 * Verifies the HMAC signature of a chat-tool callback (docs/approvals.md "Signed callbacks").
 *
 * Guaranteed: `ok` only when the signature is an HMAC-SHA256, under one channel's shared secret, of
 * `<timestamp>.<body>`, compared in constant time, and the timestamp lies within the replay window
 * of `now`. Not guaranteed: that the same callback is not replayed inside that window (a decision
 * can only be made once, so a replay is answered 409).
 */
export interface CallbackVerifier {
  verify(callback: SignedCallback): CallbackVerdict;
}
