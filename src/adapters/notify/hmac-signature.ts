import { createHmac, timingSafeEqual } from "node:crypto";
import type { CallbackVerdict, CallbackVerifier, SignedCallback } from "../../app/ports/callback-verifier.js";

/** Accepted distance between a callback's timestamp and now, either way (replay window). */
export const DEFAULT_REPLAY_WINDOW_S = 300;

const SIGNATURE_FORMAT = /^sha256=([0-9a-f]{64})$/;
const TIMESTAMP_FORMAT = /^\d{1,12}$/;

/**
 * The signature of a body at a time: HMAC-SHA256 under the shared secret of
 * `<timestamp>.<body>`, as `sha256=<hex>`. Outgoing webhook notifications are signed the same way,
 * so a receiver verifies them with the code it uses to sign its callbacks.
 */
export function signBody(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex")}`;
}

/**
 * Verifies signed callbacks against the shared secret of each channel that has one. Every secret is
 * tried, each comparison in constant time, so the answer's timing says nothing about which secret
 * nearly matched.
 */
export class HmacCallbackVerifier implements CallbackVerifier {
  constructor(
    private readonly secrets: ReadonlyMap<string, string>,
    private readonly windowSeconds = DEFAULT_REPLAY_WINDOW_S,
  ) {}

  verify(callback: SignedCallback): CallbackVerdict {
    const timestamp = callback.timestamp?.trim();
    const signature = SIGNATURE_FORMAT.exec(callback.signature?.trim().toLowerCase() ?? "")?.[1];
    if (!timestamp || !TIMESTAMP_FORMAT.test(timestamp) || !signature)
      return { ok: false, reason: "missing" };
    if (Math.abs(callback.now - Number(timestamp)) > this.windowSeconds)
      return { ok: false, reason: "stale" };
    const given = Buffer.from(signature, "hex");
    let signedBy: string | undefined;
    for (const [channel, secret] of this.secrets) {
      const expected = Buffer.from(signBody(secret, timestamp, callback.body).slice("sha256=".length), "hex");
      if (timingSafeEqual(expected, given) && signedBy === undefined) signedBy = channel;
    }
    return signedBy === undefined ? { ok: false, reason: "mismatch" } : { ok: true, channel: signedBy };
  }
}
