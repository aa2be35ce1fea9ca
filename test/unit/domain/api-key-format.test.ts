import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { API_KEY_PREFIX, rawApiKeyFromHex } from "../../../src/domain/auth/api-key-format.js";

describe("raw API keys", () => {
  it("are mcp_ and the URL-safe base64 of the bytes, without padding", () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = randomBytes(length);
      expect(rawApiKeyFromHex(bytes.toString("hex"))).toBe(`${API_KEY_PREFIX}${bytes.toString("base64url")}`);
    }
  });

  it("of 32 bytes are 43 characters after the prefix", () => {
    expect(rawApiKeyFromHex("ff".repeat(32))).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);
  });

  it("refuse input that is not hex bytes", () => {
    expect(() => rawApiKeyFromHex("abc")).toThrow(RangeError);
    expect(() => rawApiKeyFromHex("zz")).toThrow(RangeError);
  });
});
