import { describe, expect, it } from "vitest";
import {
  isSecretKey,
  REDACTED,
  redactArguments,
  redactString,
} from "../../../../src/domain/approval/redact.js";

describe("redaction of held arguments", () => {
  it.each([
    "password",
    "db_password",
    "apiKey",
    "api_key",
    "X-Api-Key",
    "accessToken",
    "refresh_token",
    "client_secret",
    "Authorization",
    "auth",
    "credentials",
    "privateKey",
    "cookie",
    "passphrase",
  ])("treats values under %s as secret", (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(["path", "message", "keyword", "monkey", "author_name", "recipient"])(
    "leaves values under %s visible",
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  it("replaces secret values, nested and in lists, and keeps everything else", () => {
    const args = {
      path: "/srv/data",
      count: 3,
      options: { recursive: true, token: "abc123", nested: [{ password: "hunter2" }, "plain"] },
      headers: { Authorization: "Bearer abc.def.ghi" },
      empty_secret: "",
    };
    const redacted = redactArguments(args);
    expect(redacted).toEqual({
      path: "/srv/data",
      count: 3,
      options: { recursive: true, token: REDACTED, nested: [{ password: REDACTED }, "plain"] },
      headers: { Authorization: REDACTED },
      empty_secret: "",
    });
    // The input is left as it was.
    expect(args.options.token).toBe("abc123");
  });

  it.each([
    ["a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXBhcnQ"],
    ["a bearer header value", "Bearer 0123456789abcdef"],
    ["a GitHub token", `ghp_${"a1B2".repeat(9)}`],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["a Slack token", "xoxb-123456789012-abcdefghij"],
    ["a PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE..."],
    ["an Airlock API key", "mcp_abcdef0123456789"],
    ["a random high-entropy string", "Zk9pQ2xV7tYb3RnW8sLm4HdJ6fGq1XcE0aPo"],
  ])("replaces %s found under a harmless key", (_name, value) => {
    expect(redactArguments({ note: value })).toEqual({ note: REDACTED });
  });

  it("replaces a text that carries an Airlock API key anywhere in it", () => {
    const key = `mcp_${"aB3-_x".repeat(7)}Q`;
    for (const text of [`please use ${key} for this`, `x-api-key: ${key}`, `${key} trailing`]) {
      expect(redactString(text)).toBe(REDACTED);
    }
    expect(redactString("set mcp_server_id to math")).toBe("set mcp_server_id to math");
    const identifier = "mcp_servers_health_check_interval_override_for_the_math_server";
    expect(redactString(`raise ${identifier}`)).toBe(`raise ${identifier}`);
  });

  it("keeps ordinary text, hex digests and numbers", () => {
    const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    expect(redactString("delete the old reports")).toBe("delete the old reports");
    expect(redactString(digest)).toBe(digest);
    expect(redactArguments({ n: 42, ok: true, nothing: null })).toEqual({ n: 42, ok: true, nothing: null });
  });

  it("masks only the password of a URL carrying credentials", () => {
    expect(redactString("postgres://app:s3cret@db.internal:5432/main")).toBe(
      `postgres://app:${REDACTED}@db.internal:5432/main`,
    );
    expect(redactString("https://example.com/a:b@c")).toBe("https://example.com/a:b@c");
  });
});
