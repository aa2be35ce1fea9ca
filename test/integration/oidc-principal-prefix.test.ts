/**
 * `principal_prefix` namespaces an issuer's subjects: with two trusted issuers, a token of the
 * prefixed one with `sub: admin` is the principal `partner:admin`, not the API-key principal
 * `admin`, and holds none of its roles or sessions; the unprefixed issuer keeps the spec's bare
 * subject, so its `sub: admin` is that very principal (the collision the prefix prevents). Role
 * assignments name the prefixed id.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oidcIssuerSettings } from "../../src/composition/open-token-verifier.js";
import { parseConfig } from "../../src/config/load.js";
import { createApiKey } from "../support/api-keys.js";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { createSigningKey, type JwksServer, startJwksServer } from "../support/jwks-server.js";
import { connect, rawMcpPost } from "../support/mcp-client.js";

const RESOURCE = "https://gateway.example/mcp";

let corp: JwksServer;
let partner: JwksServer;
let gw: TestGateway;
let base: string;
let adminKey: string;

/** A token of `idp` for `sub`, valid for ten minutes. */
const token = (idp: JwksServer, sub: string, claims: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return idp.sign({ iss: idp.issuer, aud: RESOURCE, sub, iat: now, exp: now + 600, ...claims });
};

beforeAll(async () => {
  corp = await startJwksServer("corp", [await createSigningKey()]);
  partner = await startJwksServer("partner", [await createSigningKey("ES256")]);
  gw = await startTestGateway(`
auth:
  enabled: true
  oidc:
    enabled: true
    resource_uri: ${RESOURCE}
    principal_prefix: "top:" # the top-level issuer's; not inherited by list entries
    issuers:
      - issuer: ${corp.issuer}
      - issuer: ${partner.issuer}
        principal_prefix: "partner:"
  role_assignments:
    - {principal: admin, role: admin}
    - {principal: "partner:alice", role: viewer}
mcp_servers: {}
`);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  adminKey = await createApiKey(gw, "admin");
});
afterAll(async () => {
  await gw?.close();
  await corp?.close();
  await partner?.close();
});

const get = (url: string, headers: Record<string, string>) => gw.app.inject({ method: "GET", url, headers });
const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

describe("a prefixed issuer", () => {
  it("makes sub: admin the principal partner:admin, without the roles of the API-key principal admin", async () => {
    const jwt = await token(partner, "admin");
    expect((await get("/api/system/me", bearer(jwt))).json()).toEqual({
      authenticated: true,
      principal: { id: "partner:admin", type: "jwt" },
    });
    expect((await get("/api/auth/roles", bearer(jwt))).statusCode).toBe(403);
    expect((await get("/api/mcp_servers/", bearer(jwt))).statusCode).toBe(403);
    // The API-key principal admin holds them.
    expect((await get("/api/auth/roles", { "x-api-key": adminKey })).statusCode).toBe(200);
  });

  it("gets the roles assigned to the prefixed id", async () => {
    const jwt = await token(partner, "alice");
    expect((await get("/api/mcp_servers/", bearer(jwt))).statusCode).toBe(200);
    // The bare subject is another principal: an unprefixed issuer's alice holds nothing.
    expect((await get("/api/mcp_servers/", bearer(await token(corp, "alice")))).statusCode).toBe(403);
  });

  it("cannot use a session of the API-key principal admin", async () => {
    const client = await connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": adminKey } },
      }),
    );
    try {
      const session = (client.transport as StreamableHTTPClientTransport).sessionId ?? "";
      const list = { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} };
      const prefixed = await rawMcpPost(base, session, list, bearer(await token(partner, "admin")));
      expect(prefixed.status).toBe(404);
      // Without a prefix the issuer's admin is the API-key admin, and its session is theirs.
      const bare = await rawMcpPost(base, session, list, bearer(await token(corp, "admin")));
      expect(bare.status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describe("an issuer without a prefix", () => {
  it("keeps the bare subject: its sub: admin holds the roles of the API-key principal admin", async () => {
    const jwt = await token(corp, "admin");
    expect((await get("/api/system/me", bearer(jwt))).json().principal).toEqual({ id: "admin", type: "jwt" });
    expect((await get("/api/auth/roles", bearer(jwt))).statusCode).toBe(200);
  });
});

describe("where the prefix comes from", () => {
  const settings = (oidc: string) =>
    oidcIssuerSettings(
      parseConfig(`auth:\n  enabled: true\n  oidc:\n${oidc}`, { env: {} }).config.auth.oidc,
    ).map((issuer) => [issuer.issuer, issuer.principalPrefix]);

  it("is the top-level one for the top-level issuer, and each entry's own for a list", () => {
    expect(
      settings("    enabled: true\n    issuer: https://idp.example\n    principal_prefix: 'idp:'\n"),
    ).toEqual([["https://idp.example", "idp:"]]);
    expect(
      settings(
        "    enabled: true\n    principal_prefix: 'top:'\n    issuers:\n" +
          "      - {issuer: https://a.example}\n      - {issuer: https://b.example, principal_prefix: 'b:'}\n",
      ),
    ).toEqual([
      ["https://a.example", ""],
      ["https://b.example", "b:"],
    ]);
  });
});
