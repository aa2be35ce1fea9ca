import { describe, expect, it } from "vitest";
import { createOriginCheck, isLoopbackHost } from "../../../src/edges/http/origin-policy.js";

describe("isLoopbackHost", () => {
  it("accepts the loopback names with or without a port, and nothing else", () => {
    for (const host of ["localhost", "localhost:8000", "127.0.0.1:3000", "[::1]:8080", "LOCALHOST"])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of [undefined, "", "evil.example", "localhost.evil.example", "127.0.0.2", "[::2]", "a b"])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it("answers the same for a value asked again, and past the values it remembers", () => {
    const hosts = Array.from({ length: 600 }, (_, i) => (i % 2 === 0 ? `localhost:${i}` : `h${i}.example`));
    for (let round = 0; round < 2; round++)
      for (const [i, host] of hosts.entries()) expect(isLoopbackHost(host)).toBe(i % 2 === 0);
  });
});

describe("createOriginCheck", () => {
  it("allows no Origin, loopback origins and configured ones after normalisation; refuses the rest", () => {
    const allowed = createOriginCheck(["https://console.example.com:443"]);
    for (const origin of [
      undefined,
      "http://localhost:3000",
      "https://console.example.com",
      "HTTPS://Console.Example.com",
    ])
      expect(allowed(origin)).toBe(true);
    for (const origin of [
      "null",
      "https://evil.example",
      "ftp://localhost",
      "https://console.example.com:8443",
    ]) {
      expect(allowed(origin)).toBe(false);
      expect(allowed(origin)).toBe(false);
    }
  });

  it("keeps each check's configured origins its own", () => {
    const one = createOriginCheck(["https://a.example"]);
    const two = createOriginCheck(["https://b.example"]);
    expect([one("https://a.example"), two("https://a.example")]).toEqual([true, false]);
    expect([one("https://b.example"), two("https://b.example")]).toEqual([false, true]);
  });
});
