import { describe, expect, it } from "vitest";
import {
  REDACTED,
  REDACTED_DIFFERS,
  redactSecrets,
} from "../../../../src/app/config-state/redact-secrets.js";

describe("redactSecrets", () => {
  it("hides credential-shaped strings anywhere, such as tokens in a command's arguments, and keys like passphrase", () => {
    const document = {
      mcp_servers: {
        gh: {
          command: ["node", "server.js", "--token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
          args: ["--api-key=sk-live-abcdefghijklmnop1234"],
          description: "GitHub tools",
          passphrase: "hunter2",
        },
      },
    };
    expect(redactSecrets(document)).toEqual({
      mcp_servers: {
        gh: {
          command: ["node", "server.js", "--token", REDACTED],
          args: [REDACTED],
          description: "GitHub tools",
          passphrase: REDACTED,
        },
      },
    });
  });

  it("hides string values of sensitive keys, env and headers maps, URL passwords and sensitive query values", () => {
    const document = {
      persistence: { postgresql: { host: "db", password: "pw", port: 5432 } },
      truncation: { redis_url: "redis://user:hunter2@cache:6379/0" },
      approvals: { webhook: { url: "https://hooks.example/x?token=abc&team=ops", signing_secret: "s" } },
      auth: {
        api_key: { enabled: true, header_name: "X-API-Key" },
        oidc: { max_token_lifetime_seconds: 3600 },
      },
      mcp_servers: {
        remote: {
          endpoint: "https://api.example/mcp",
          auth: { type: "bearer", token: "t" },
          http: { headers: { Authorization: "Bearer t", "X-Trace": "on" } },
          env: { PLAIN: "x", NESTED: { deeper: "kept" } },
        },
      },
    };
    expect(redactSecrets(document)).toEqual({
      persistence: { postgresql: { host: "db", password: REDACTED, port: 5432 } },
      truncation: { redis_url: "redis://user:redacted@cache:6379/0" },
      approvals: {
        webhook: { url: "https://hooks.example/x?token=%5Bredacted%5D&team=ops", signing_secret: REDACTED },
      },
      // A sensitive-looking key holding a mapping or a number is walked or kept, never replaced.
      auth: {
        api_key: { enabled: true, header_name: "X-API-Key" },
        oidc: { max_token_lifetime_seconds: 3600 },
      },
      mcp_servers: {
        remote: {
          endpoint: "https://api.example/mcp",
          auth: { type: "bearer", token: REDACTED },
          http: { headers: { Authorization: REDACTED, "X-Trace": REDACTED } },
          // Under env and headers every value is hidden, a mapping written there too.
          env: { PLAIN: REDACTED, NESTED: REDACTED },
        },
      },
    });
    // The input is not changed.
    expect(document.mcp_servers.remote.auth.token).toBe("t");
  });

  it("marks a secret that differs from the compared document, without its value", () => {
    const before = { servers: [{ env: { KEY: "one", SAME: "x" } }] };
    const after = { servers: [{ env: { KEY: "two", SAME: "x" } }] };
    expect(redactSecrets(after, before)).toEqual({
      servers: [{ env: { KEY: REDACTED_DIFFERS, SAME: REDACTED } }],
    });
    expect(redactSecrets(after)).toEqual({ servers: [{ env: { KEY: REDACTED, SAME: REDACTED } }] });
  });

  it("hides every value of env and headers maps, numbers, lists and mappings included", () => {
    const document = {
      mcp_servers: {
        db: {
          env: { DB_PASSWORD: 98765432, LIST: ["supersecretvalue123"], NESTED: { token: 42 }, ON: true },
          headers: { "X-Pin": 1234 },
        },
      },
    };
    expect(redactSecrets(document)).toEqual({
      mcp_servers: {
        db: {
          env: { DB_PASSWORD: REDACTED, LIST: REDACTED, NESTED: REDACTED, ON: REDACTED },
          headers: { "X-Pin": REDACTED },
        },
      },
    });
    const changed = {
      mcp_servers: { db: { env: { DB_PASSWORD: 11111111, LIST: ["supersecretvalue123"] } } },
    };
    expect(redactSecrets(changed, document)).toEqual({
      mcp_servers: { db: { env: { DB_PASSWORD: REDACTED_DIFFERS, LIST: REDACTED } } },
    });
  });
});
