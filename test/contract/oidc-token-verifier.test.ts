import { createServer } from "node:net";
import { SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OidcTokenVerifier } from "../../src/adapters/auth/oidc/oidc-token-verifier.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import type { Logger } from "../../src/app/ports/logger.js";
import type { TokenVerdict, TokenVerifier } from "../../src/app/ports/token-verifier.js";
import { openTokenVerifier } from "../../src/composition/open-token-verifier.js";
import { parseConfig } from "../../src/config/load.js";
import { isAcceptableJwksUrl } from "../../src/config/schema/auth.js";
import type { OidcConfig } from "../../src/config/schema.js";
import {
  createSigningKey,
  type JwksServer,
  publicKeyPem,
  type SigningKey,
  startJwksServer,
} from "../support/jwks-server.js";

const AUDIENCE = "airlock";
const RESOURCE = "https://airlock.example.com/mcp";

interface LogEntry {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

const logs: LogEntry[] = [];
const logger: Logger = {
  debug: (fields, message) => logs.push({ level: "debug", fields, message }),
  info: (fields, message) => logs.push({ level: "info", fields, message }),
  warn: (fields, message) => logs.push({ level: "warn", fields, message }),
  error: (fields, message) => logs.push({ level: "error", fields, message }),
};

const servers: JwksServer[] = [];
let keyA: SigningKey;
let keyB: SigningKey;
let a: JwksServer;
let b: JwksServer;

beforeAll(async () => {
  keyA = await createSigningKey("RS256");
  keyB = await createSigningKey("ES256");
  a = await server("a", [keyA]);
  b = await server("b", [keyB]);
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((started) => started.close()));
});

async function server(name: string, keys: readonly SigningKey[]): Promise<JwksServer> {
  const started = await startJwksServer(name, keys);
  servers.push(started);
  return started;
}

/** `auth.oidc` through the real loader (schema, inheritance, environment overrides). */
function loadOidc(oidc: Record<string, unknown>, env: Record<string, string> = {}): OidcConfig {
  const document = { auth: { enabled: true, oidc: { enabled: true, ...oidc } } };
  return parseConfig(JSON.stringify(document), { env }).config.auth.oidc;
}

/** Unknown `kid`s refetch at once unless a test asks for the production cooldown. */
function open(
  oidc: Record<string, unknown>,
  options: { env?: Record<string, string>; cooldownMs?: number } = {},
): TokenVerifier {
  const verifier = openTokenVerifier(loadOidc(oidc, options.env), {
    clock: new SystemClock(),
    logger,
    keyCache: { cooldownMs: options.cooldownMs ?? 0 },
  });
  if (!verifier) throw new Error("OIDC is enabled: a verifier was expected");
  return verifier;
}

function twoIssuers(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    audience: AUDIENCE,
    issuers: [
      { issuer: a.issuer, jwks_uri: a.jwksUri },
      { issuer: b.issuer, jwks_uri: b.jwksUri },
    ],
    ...extra,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A valid claim set of `issuer`; `extra` overrides, an `undefined` value removes a claim. */
function claims(issuer: JwksServer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  return { iss: issuer.issuer, sub: "alice", aud: AUDIENCE, iat: now, exp: now + 300, ...extra };
}

function refusal(verdict: TokenVerdict): string {
  if (verdict.ok) throw new Error(`expected a refusal, got a verified token of ${verdict.token.subject}`);
  return verdict.reason;
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

describe("OidcTokenVerifier", () => {
  it("accepts a good token of each trusted issuer and maps its claims", async () => {
    const verifier = open(twoIssuers());
    const exp = nowSeconds() + 600;
    const tokenA = await a.sign(
      claims(a, {
        exp,
        groups: ["developer", "viewer"],
        email: "alice@example.com",
        tenant_id: "acme",
        sid: "session-1",
      }),
    );
    expect(await verifier.verify(tokenA)).toEqual({
      ok: true,
      token: {
        issuer: a.issuer,
        subject: "alice",
        principal_id: "alice",
        tenant_id: "acme",
        groups: ["developer", "viewer"],
        email: "alice@example.com",
        session_id: "session-1",
        expires_at: exp,
      },
    });

    const tokenB = await b.sign(claims(b, { sub: "bob" }));
    const verdictB = await verifier.verify(tokenB);
    expect(verdictB.ok && verdictB.token).toMatchObject({
      issuer: b.issuer,
      subject: "bob",
      tenant_id: null,
      groups: [],
      email: null,
      session_id: null,
    });
  });

  it("makes the principal id the subject behind the issuer's own principal_prefix, never another's", async () => {
    const verifier = open({
      audience: AUDIENCE,
      principal_prefix: "top:",
      issuers: [
        { issuer: a.issuer, jwks_uri: a.jwksUri },
        { issuer: b.issuer, jwks_uri: b.jwksUri, principal_prefix: "partner:" },
      ],
    });
    const fromB = await verifier.verify(await b.sign(claims(b, { sub: "admin" })));
    expect(fromB.ok && [fromB.token.subject, fromB.token.principal_id]).toEqual(["admin", "partner:admin"]);
    // The top-level prefix is not inherited by list entries: a keeps the bare subject.
    const fromA = await verifier.verify(await a.sign(claims(a, { sub: "admin" })));
    expect(fromA.ok && [fromA.token.subject, fromA.token.principal_id]).toEqual(["admin", "admin"]);
  });

  it("discovers the key set through the issuer's openid-configuration, once", async () => {
    const discovered = await server("discovered", [await createSigningKey("PS256")]);
    const verifier = open({ issuer: discovered.issuer, audience: AUDIENCE });
    expect((await verifier.verify(await discovered.sign(claims(discovered)))).ok).toBe(true);
    expect((await verifier.verify(await discovered.sign(claims(discovered, { sub: "carol" })))).ok).toBe(
      true,
    );
    expect(discovered.requests).toEqual([pathOf(discovered.discoveryUrl), pathOf(discovered.jwksUri)]);
  });

  it("refuses keys when discovery names a plain-http key set off the local machine or another issuer", async () => {
    const insecure = await server("insecure", [await createSigningKey()]);
    insecure.setDiscovery({ issuer: insecure.issuer, jwks_uri: "http://keys.example.com/jwks" });
    const verifier = open({ issuer: insecure.issuer, audience: AUDIENCE });
    expect(refusal(await verifier.verify(await insecure.sign(claims(insecure))))).toBe(
      "signing keys unavailable",
    );
    expect(insecure.requests).toEqual([pathOf(insecure.discoveryUrl)]);

    const impostor = await server("impostor", [await createSigningKey()]);
    impostor.setDiscovery({ issuer: a.issuer, jwks_uri: impostor.jwksUri });
    const other = open({ issuer: impostor.issuer, audience: AUDIENCE });
    expect(refusal(await other.verify(await impostor.sign(claims(impostor))))).toBe(
      "signing keys unavailable",
    );
    expect(impostor.requests).toEqual([pathOf(impostor.discoveryUrl)]);
  });

  it("refuses alg none before fetching any key", async () => {
    const discovered = await server("none", [await createSigningKey()]);
    const verifier = open({ issuer: discovered.issuer, audience: AUDIENCE });
    const unsigned = new UnsecuredJWT(claims(discovered)).encode();
    expect(refusal(await verifier.verify(unsigned))).toBe("signing algorithm not accepted");
    // The same with an empty signature part spelled out, and a kid of a real key.
    const [, payload] = unsigned.split(".");
    const header = Buffer.from(JSON.stringify({ alg: "none", kid: discovered.keys()[0]?.kid })).toString(
      "base64url",
    );
    expect(refusal(await verifier.verify(`${header}.${payload}.`))).toBe("signing algorithm not accepted");
    expect(discovered.requests).toEqual([]);
  });

  it("refuses an HS256 token keyed with the issuer's public key (RS256-to-HS256 confusion)", async () => {
    const verifier = open(twoIssuers());
    const pem = new TextEncoder().encode(await publicKeyPem(keyA));
    const jwkText = new TextEncoder().encode(JSON.stringify(keyA.publicJwk));
    for (const secret of [pem, jwkText]) {
      const forged = await new SignJWT(claims(a))
        .setProtectedHeader({ alg: "HS256", kid: keyA.kid })
        .sign(secret);
      expect(refusal(await verifier.verify(forged))).toBe("signing algorithm not accepted");
    }
  });

  it("cannot be built with a symmetric algorithm or none pinned", () => {
    const base = {
      issuer: a.issuer,
      audience: AUDIENCE,
      jwksUri: a.jwksUri,
      maxTokenLifetimeSeconds: 3600,
      claims: { subject: "sub", groups: "groups", email: "email", tenant: "tenant_id", sessionId: "sid" },
      requireTenant: false,
      strictTenantAudience: false,
      tenantAudiences: {},
    };
    for (const algorithms of [["HS256"], ["RS256", "none"], []]) {
      expect(
        () =>
          new OidcTokenVerifier({
            issuers: [{ ...base, algorithms }],
            clockSkewLeewaySeconds: 60,
            acceptKeyUrl: isAcceptableJwksUrl,
            clock: new SystemClock(),
          }),
      ).toThrow();
    }
  });

  it("never lets a kid reach a URL: path-like kids are refused or only compared", async () => {
    const injected = await server("kid", [await createSigningKey()]);
    const verifier = open({ issuer: injected.issuer, jwks_uri: injected.jwksUri, audience: AUDIENCE });
    const key = injected.keys()[0]!;
    for (const kid of ["../../../../etc/passwd", "..%2f..%2fetc%2fpasswd", "keys\\..\\secret", "a\nb"]) {
      const token = await injected.sign(claims(injected), { header: { kid } });
      expect(refusal(await verifier.verify(token))).toBe("malformed key id");
    }
    expect(injected.requests).toEqual([]);

    const slashed = await injected.sign(claims(injected), { key, header: { kid: "certs/other" } });
    expect(refusal(await verifier.verify(slashed))).toBe("no signing key matches the token");
    expect(injected.requests.length).toBeGreaterThan(0);
    expect(injected.requests.every((path) => path === pathOf(injected.jwksUri))).toBe(true);
  });

  it("refuses a wrong or missing audience and accepts it among several", async () => {
    const verifier = open(twoIssuers());
    expect(refusal(await verifier.verify(await a.sign(claims(a, { aud: "other" }))))).toBe(
      "audience not accepted",
    );
    expect(refusal(await verifier.verify(await a.sign(claims(a, { aud: undefined }))))).toBe(
      "token has no audience",
    );
    expect(await verifier.verify(await a.sign(claims(a, { aud: ["other", AUDIENCE] })))).toMatchObject({
      ok: true,
    });
  });

  it("enforces resource_uri as the audience of every issuer, over their own audience", async () => {
    const verifier = open({
      audience: AUDIENCE,
      resource_uri: RESOURCE,
      issuers: [
        { issuer: a.issuer, jwks_uri: a.jwksUri },
        { issuer: b.issuer, jwks_uri: b.jwksUri, audience: "partner" },
      ],
    });
    expect(refusal(await verifier.verify(await b.sign(claims(b, { aud: "partner" }))))).toBe(
      "audience not accepted",
    );
    expect(refusal(await verifier.verify(await a.sign(claims(a, { aud: AUDIENCE }))))).toBe(
      "audience not accepted",
    );
    expect((await verifier.verify(await b.sign(claims(b, { aud: RESOURCE })))).ok).toBe(true);
    expect((await verifier.verify(await a.sign(claims(a, { aud: RESOURCE })))).ok).toBe(true);
  });

  it("refuses a token of issuer A signed with issuer B's key or a stranger's key under A's kid", async () => {
    const verifier = open(twoIssuers());
    const withB = await b.sign(claims(a), { key: keyB });
    expect(refusal(await verifier.verify(withB))).toBe("no signing key matches the token");

    const stranger = await createSigningKey("RS256", keyA.kid);
    const forged = await a.sign(claims(a), { key: stranger });
    expect(refusal(await verifier.verify(forged))).toBe("invalid signature");
  });

  it("refuses expired tokens beyond the leeway and accepts them within it", async () => {
    const now = nowSeconds();
    const verifier = open(twoIssuers({ clock_skew_leeway_seconds: 60 }));
    expect(
      refusal(await verifier.verify(await a.sign(claims(a, { iat: now - 7200, exp: now - 3600 })))),
    ).toBe("token expired");
    expect((await verifier.verify(await a.sign(claims(a, { iat: now - 300, exp: now - 10 })))).ok).toBe(true);

    const strict = open(twoIssuers({ clock_skew_leeway_seconds: 0 }));
    expect(refusal(await strict.verify(await a.sign(claims(a, { iat: now - 300, exp: now - 10 }))))).toBe(
      "token expired",
    );
  });

  it("requires exp", async () => {
    const verifier = open(twoIssuers({ max_token_lifetime_seconds: 0 }));
    expect(refusal(await verifier.verify(await a.sign(claims(a, { exp: undefined }))))).toBe(
      "token has no exp",
    );
  });

  it("refuses a token whose nbf or iat lies in the future beyond the leeway", async () => {
    const now = nowSeconds();
    const verifier = open(twoIssuers());
    expect(
      refusal(await verifier.verify(await a.sign(claims(a, { nbf: now + 3600, exp: now + 3900 })))),
    ).toBe("token not yet valid");
    expect((await verifier.verify(await a.sign(claims(a, { nbf: now + 10 })))).ok).toBe(true);
    expect(refusal(await verifier.verify(await a.sign(claims(a, { iat: now + 600, exp: now + 900 }))))).toBe(
      "token issued in the future",
    );
  });

  it("caps the lifetime exp - iat per issuer, with MCP_JWT_MAX_TOKEN_LIFETIME winning over the file", async () => {
    const now = nowSeconds();
    const long = { iat: now, exp: now + 7200 };
    const config = {
      audience: AUDIENCE,
      max_token_lifetime_seconds: 3600,
      issuers: [
        { issuer: a.issuer, jwks_uri: a.jwksUri },
        { issuer: b.issuer, jwks_uri: b.jwksUri, max_token_lifetime_seconds: 0 },
      ],
    };
    const verifier = open(config);
    expect(refusal(await verifier.verify(await a.sign(claims(a, long))))).toBe(
      "token lifetime exceeds the maximum",
    );
    expect((await verifier.verify(await b.sign(claims(b, long)))).ok).toBe(true);
    expect(refusal(await verifier.verify(await a.sign(claims(a, { iat: undefined }))))).toBe(
      "token has no iat (required by the lifetime cap)",
    );
    expect((await verifier.verify(await b.sign(claims(b, { iat: undefined })))).ok).toBe(true);

    const raised = open(config, { env: { MCP_JWT_MAX_TOKEN_LIFETIME: "10800" } });
    expect((await raised.verify(await a.sign(claims(a, long)))).ok).toBe(true);
    const lowered = open(config, { env: { MCP_JWT_MAX_TOKEN_LIFETIME: "60" } });
    expect(refusal(await lowered.verify(await b.sign(claims(b))))).toBe("token lifetime exceeds the maximum");
  });

  it("refuses a missing, empty, non-string or untrusted iss before any key is fetched", async () => {
    const discovered = await server("iss", [await createSigningKey()]);
    const verifier = open({ issuer: discovered.issuer, audience: AUDIENCE });
    for (const iss of [undefined, "", "   ", 42, [discovered.issuer], { iss: discovered.issuer }, null]) {
      const token = await discovered.sign(claims(discovered, { iss }));
      expect(refusal(await verifier.verify(token))).toBe("token has no issuer");
    }
    for (const iss of [
      `${discovered.issuer}/`,
      discovered.issuer.toUpperCase(),
      "https://evil.example.com",
    ]) {
      const token = await discovered.sign(claims(discovered, { iss }));
      expect(refusal(await verifier.verify(token))).toBe("untrusted issuer");
    }
    for (const garbage of ["", "not-a-jwt", "a.b.c", "x".repeat(70_000)]) {
      expect((await verifier.verify(garbage)).ok).toBe(false);
    }
    expect(discovered.requests).toEqual([]);
  });

  it("follows key rotation: a new kid refetches the set, a removed key is refused", async () => {
    const oldKey = await createSigningKey();
    const newKey = await createSigningKey();
    const rotating = await server("rotating", [oldKey]);
    const verifier = open({ issuer: rotating.issuer, jwks_uri: rotating.jwksUri, audience: AUDIENCE });
    const oldToken = await rotating.sign(claims(rotating), { key: oldKey });
    expect((await verifier.verify(oldToken)).ok).toBe(true);

    rotating.setKeys([oldKey, newKey]);
    const newToken = await rotating.sign(claims(rotating), { key: newKey });
    expect((await verifier.verify(newToken)).ok).toBe(true);
    expect((await verifier.verify(oldToken)).ok).toBe(true);

    rotating.setKeys([newKey]);
    expect((await verifier.verify(newToken)).ok).toBe(true);
    // The cached set still holds the old key until an unknown kid or its age refetches it.
    const newerKey = await createSigningKey();
    rotating.setKeys([newerKey]);
    expect((await verifier.verify(await rotating.sign(claims(rotating), { key: newerKey }))).ok).toBe(true);
    expect(refusal(await verifier.verify(oldToken))).toBe("no signing key matches the token");
    expect(refusal(await verifier.verify(newToken))).toBe("no signing key matches the token");
  });

  it("caches the key set: an unknown kid within the cooldown is refused without a fetch", async () => {
    const cached = await server("cached", [await createSigningKey()]);
    const verifier = open(
      { issuer: cached.issuer, jwks_uri: cached.jwksUri, audience: AUDIENCE },
      { cooldownMs: 30_000 },
    );
    expect((await verifier.verify(await cached.sign(claims(cached)))).ok).toBe(true);
    expect((await verifier.verify(await cached.sign(claims(cached, { sub: "bob" })))).ok).toBe(true);
    const unknown = await cached.sign(claims(cached), { header: { kid: "not-served" } });
    expect(refusal(await verifier.verify(unknown))).toBe("no signing key matches the token");
    expect(cached.requests).toEqual([pathOf(cached.jwksUri)]);
  });

  it("refuses tokens while the key set cannot be fetched and warns without the token", async () => {
    const port = await closedPort();
    const unreachable = await server("unreachable", [await createSigningKey()]);
    const jwksUri = `http://127.0.0.1:${port}/keys`;
    const verifier = open({ issuer: unreachable.issuer, jwks_uri: jwksUri, audience: AUDIENCE });
    const token = await unreachable.sign(claims(unreachable));
    const before = logs.length;
    expect(refusal(await verifier.verify(token))).toBe("signing keys unavailable");
    const warnings = logs.slice(before).filter((entry) => entry.level === "warn");
    expect(warnings.map((entry) => entry.message)).toContain("OIDC signing keys could not be fetched");
    expect(JSON.stringify(logs)).not.toContain(token.split(".")[2]);
  });

  it("applies require_tenant", async () => {
    const verifier = open(twoIssuers({ require_tenant: true }));
    expect(refusal(await verifier.verify(await a.sign(claims(a))))).toBe("token has no tenant");
    expect(refusal(await verifier.verify(await a.sign(claims(a, { tenant_id: 42 }))))).toBe(
      "tenant claim must be a non-empty string",
    );
    const verdict = await verifier.verify(await a.sign(claims(a, { tenant_id: "acme" })));
    expect(verdict.ok && verdict.token.tenant_id).toBe("acme");
  });

  it("applies strict_tenant_audience: the audience must be the tenant's", async () => {
    const verifier = open(
      twoIssuers({ strict_tenant_audience: true, tenant_audiences: { acme: "airlock-acme" } }),
    );
    const acme = { tenant_id: "acme" };
    expect(
      (await verifier.verify(await a.sign(claims(a, { ...acme, aud: [AUDIENCE, "airlock-acme"] })))).ok,
    ).toBe(true);
    expect(refusal(await verifier.verify(await a.sign(claims(a, { ...acme, aud: AUDIENCE }))))).toBe(
      "audience does not match the tenant",
    );
    expect(
      refusal(
        await verifier.verify(
          await a.sign(claims(a, { tenant_id: "globex", aud: [AUDIENCE, "airlock-acme"] })),
        ),
      ),
    ).toBe("tenant has no configured audience");
    expect(refusal(await verifier.verify(await a.sign(claims(a, { aud: [AUDIENCE, "airlock-acme"] }))))).toBe(
      "token has no tenant",
    );
  });

  it("maps claims with per-issuer overrides and inherits the top-level keys", async () => {
    const verifier = open({
      audience: AUDIENCE,
      groups_claim: "roles",
      issuers: [
        { issuer: a.issuer, jwks_uri: a.jwksUri },
        {
          issuer: b.issuer,
          jwks_uri: b.jwksUri,
          subject_claim: "uid",
          groups_claim: "realm_access.roles",
          email_claim: "mail",
          tenant_claim: "org",
          session_id_claim: "session",
        },
      ],
    });
    const fromA = await verifier.verify(await a.sign(claims(a, { roles: "admin", groups: ["ignored"] })));
    expect(fromA.ok && fromA.token.groups).toEqual(["admin"]);

    const fromB = await verifier.verify(
      await b.sign(
        claims(b, {
          sub: "not-this",
          uid: "bob",
          realm_access: { roles: ["developer", "viewer"] },
          mail: "bob@example.com",
          org: "globex",
          session: "s-9",
          tenant_id: "ignored",
        }),
      ),
    );
    expect(fromB.ok && fromB.token).toMatchObject({
      subject: "bob",
      groups: ["developer", "viewer"],
      email: "bob@example.com",
      tenant_id: "globex",
      session_id: "s-9",
    });

    expect(refusal(await verifier.verify(await b.sign(claims(b))))).toBe("token has no subject");
    expect(refusal(await verifier.verify(await a.sign(claims(a, { roles: { admin: true } }))))).toBe(
      "groups claim must be a string or a list of strings",
    );
    expect(refusal(await verifier.verify(await a.sign(claims(a, { roles: ["admin", 7] }))))).toBe(
      "groups claim must be a string or a list of strings",
    );
  });

  it("never puts the token in a reason or a log line", async () => {
    const verifier = open(twoIssuers());
    const tokens = [
      await a.sign(claims(a, { aud: "other" })),
      await a.sign(claims(a, { exp: nowSeconds() - 3600, iat: nowSeconds() - 4000 })),
      await b.sign(claims(a), { key: keyB }),
      `${(await a.sign(claims(a))).slice(0, -4)}AAAA`,
    ];
    const before = logs.length;
    for (const token of tokens) {
      const reason = refusal(await verifier.verify(token));
      const [header, payload, signature] = token.split(".");
      for (const part of [header, payload, signature]) expect(reason).not.toContain(part);
      expect(reason.length).toBeLessThan(80);
      const logged = JSON.stringify(logs.slice(before));
      for (const part of [payload, signature]) expect(logged).not.toContain(part);
    }
  });

  it("is not built while oidc is disabled, and refuses an issuer listed twice", () => {
    const disabled = parseConfig(JSON.stringify({ auth: { oidc: { enabled: false } } }), { env: {} }).config
      .auth.oidc;
    expect(openTokenVerifier(disabled, { clock: new SystemClock(), logger })).toBeNull();
    expect(() =>
      loadOidc({
        issuers: [
          { issuer: a.issuer, jwks_uri: a.jwksUri },
          { issuer: a.issuer, jwks_uri: b.jwksUri },
        ],
      }),
    ).toThrow(/auth\.oidc\.issuers\[1\]\.issuer.*listed twice/s);
  });
});

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
