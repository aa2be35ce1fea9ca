import { describe, expect, it } from "vitest";
import { redactOutputLine, secretValuesOf } from "../../../src/domain/server/output-redaction.js";
import type { ServerSpec } from "../../../src/domain/server/server-spec.js";

const spec = (extra: Partial<ServerSpec>): ServerSpec => ({
  id: "s",
  mode: "subprocess",
  env: {},
  idle_ttl_s: 300,
  health_check_interval_s: 60,
  max_consecutive_failures: 3,
  source: "config",
  ...extra,
});

describe("secretValuesOf", () => {
  it("takes every env value, header values and secret-keyed option strings, longest first", () => {
    const values = secretValuesOf(
      spec({
        env: { WEATHER_KEY: "abcd-1234", DEBUG: "on" },
        options: {
          headers: { "X-Custom": "header-value-1" },
          http: { client_secret: "very-secret-value", client_id: "public-id" },
          timeout: 30,
        },
      }),
    );
    expect(values).toEqual(["very-secret-value", "header-value-1", "abcd-1234"]);
  });
});

describe("redactOutputLine", () => {
  it("replaces a configured secret wherever it occurs, several times in a line", () => {
    expect(redactOutputLine("key abcd-1234 refused (abcd-1234)", ["abcd-1234"])).toBe(
      "key [REDACTED] refused ([REDACTED])",
    );
  });

  it("replaces the credential after an auth scheme and after a secret-sounding key", () => {
    expect(redactOutputLine("sending Authorization: Bearer 0123456789abcdef", [])).toBe(
      "sending Authorization: [REDACTED] [REDACTED]",
    );
    expect(redactOutputLine('config {"api_key": "plainish"} password=hunter22', [])).toBe(
      'config {"api_key": "[REDACTED]"} password=[REDACTED]',
    );
  });

  it("replaces words shaped like credentials and keeps the rest of the line", () => {
    const token = `ghp_${"a1B2".repeat(9)}`;
    expect(redactOutputLine(`clone failed with ${token} (401)`, [])).toBe(
      "clone failed with [REDACTED] (401)",
    );
    expect(redactOutputLine("Error: ENOENT: no such file, open 'settings.json'", [])).toBe(
      "Error: ENOENT: no such file, open 'settings.json'",
    );
  });

  it("keeps a URL and replaces only its password", () => {
    expect(redactOutputLine("connecting to postgres://app:s3cretpw@db:5432/x", [])).toBe(
      "connecting to postgres://app:[REDACTED]@db:5432/x",
    );
  });
});
