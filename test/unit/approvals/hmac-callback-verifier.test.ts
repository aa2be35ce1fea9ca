import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HmacCallbackVerifier, signBody } from "../../../src/adapters/notify/hmac-signature.js";

const SLACK = "slack-secret-0123456789";
const WEBHOOK = "webhook-secret-0123456789";
const verifier = new HmacCallbackVerifier(
  new Map([
    ["slack", SLACK],
    ["webhook", WEBHOOK],
  ]),
  300,
);
const body = '{"approval_id":"ap1","decision":"approve","actor":"U123"}';
const now = 1_700_000_000;

describe("signed chat callbacks", () => {
  it("signs HMAC-SHA256 of '<timestamp>.<body>' as sha256=<hex>", () => {
    const expected = createHmac("sha256", SLACK).update(`${now}.${body}`).digest("hex");
    expect(signBody(SLACK, String(now), body)).toBe(`sha256=${expected}`);
  });

  it("names the channel whose secret signed a fresh callback", () => {
    const timestamp = String(now - 10);
    expect(verifier.verify({ body, timestamp, signature: signBody(WEBHOOK, timestamp, body), now })).toEqual({
      ok: true,
      channel: "webhook",
    });
    expect(verifier.verify({ body, timestamp, signature: signBody(SLACK, timestamp, body), now })).toEqual({
      ok: true,
      channel: "slack",
    });
  });

  it("refuses a signature by another secret, over another body or another timestamp", () => {
    const timestamp = String(now);
    const other = signBody("someone-else-entirely", timestamp, body);
    expect(verifier.verify({ body, timestamp, signature: other, now })).toEqual({
      ok: false,
      reason: "mismatch",
    });
    const tampered = body.replace("approve", "deny   ");
    const signature = signBody(SLACK, timestamp, body);
    expect(verifier.verify({ body: tampered, timestamp, signature, now }).ok).toBe(false);
    expect(verifier.verify({ body, timestamp: String(now - 1), signature, now }).ok).toBe(false);
  });

  it("refuses a timestamp outside the replay window either way", () => {
    for (const timestamp of [String(now - 301), String(now + 301)]) {
      const signature = signBody(SLACK, timestamp, body);
      expect(verifier.verify({ body, timestamp, signature, now })).toEqual({ ok: false, reason: "stale" });
    }
  });

  it("refuses missing or malformed headers", () => {
    const timestamp = String(now);
    const signature = signBody(SLACK, timestamp, body);
    expect(verifier.verify({ body, timestamp: undefined, signature, now }).ok).toBe(false);
    expect(verifier.verify({ body, timestamp, signature: undefined, now }).ok).toBe(false);
    expect(verifier.verify({ body, timestamp: "soon", signature, now }).ok).toBe(false);
    expect(
      verifier.verify({ body, timestamp, signature: signature.replace("sha256=", "sha1="), now }).ok,
    ).toBe(false);
    expect(verifier.verify({ body, timestamp, signature: "sha256=abc", now }).ok).toBe(false);
  });
});
