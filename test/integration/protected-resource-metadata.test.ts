import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { describeProtectedResource } from "../../src/composition/open-token-verifier.js";
import { parseConfig } from "../../src/config/load.js";
import { registerErrorHandling } from "../../src/edges/http/plugins/errors.js";
import {
  type ProtectedResourceMetadata,
  protectedResourceMetadataUrl,
  protectedResourceRoutes,
} from "../../src/edges/http/routes/protected-resource.js";

const apps: FastifyInstance[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function metadataOf(oidc: Record<string, unknown>): ProtectedResourceMetadata | null {
  const document = { auth: { enabled: true, oidc } };
  return describeProtectedResource(parseConfig(JSON.stringify(document), { env: {} }).config.auth.oidc);
}

async function appWith(
  metadata: ProtectedResourceMetadata | null | (() => ProtectedResourceMetadata | null),
): Promise<FastifyInstance> {
  const app = Fastify();
  apps.push(app);
  registerErrorHandling(app, { debug() {}, info() {}, warn() {}, error() {} });
  protectedResourceRoutes(app, metadata);
  await app.ready();
  return app;
}

const ISSUERS = {
  enabled: true,
  issuers: [
    { issuer: "https://login.example.com/realms/main" },
    { issuer: "https://partner.example.org", jwks_uri: "https://partner.example.org/keys" },
  ],
};

describe("GET /.well-known/oauth-protected-resource", () => {
  it("describes the resource, its issuers and header bearer tokens when resource_uri is set", async () => {
    const app = await appWith(metadataOf({ ...ISSUERS, resource_uri: "https://airlock.example.com/mcp" }));
    const expected = {
      resource: "https://airlock.example.com/mcp",
      authorization_servers: ["https://login.example.com/realms/main", "https://partner.example.org"],
      bearer_methods_supported: ["header"],
    };
    const root = await app.inject({ method: "GET", url: "/.well-known/oauth-protected-resource" });
    expect(root.statusCode).toBe(200);
    expect(root.headers["content-type"]).toMatch(/^application\/json/);
    expect(root.json()).toEqual(expected);

    // RFC 9728 §3.1: the well-known path followed by the resource's own path.
    const suffixed = await app.inject({ method: "GET", url: "/.well-known/oauth-protected-resource/mcp" });
    expect(suffixed.statusCode).toBe(200);
    expect(suffixed.json()).toEqual(expected);

    const other = await app.inject({ method: "GET", url: "/.well-known/oauth-protected-resource/other" });
    expect(other.statusCode).toBe(404);
  });

  it("names the top-level issuer when no issuers list is given", async () => {
    const app = await appWith(
      metadataOf({
        enabled: true,
        issuer: "https://login.example.com",
        resource_uri: "https://airlock.example.com",
      }),
    );
    const response = await app.inject({ method: "GET", url: "/.well-known/oauth-protected-resource" });
    expect(response.json()).toMatchObject({
      resource: "https://airlock.example.com",
      authorization_servers: ["https://login.example.com"],
    });
  });

  it("answers 404 without resource_uri or with OIDC off", async () => {
    for (const oidc of [
      ISSUERS,
      { ...ISSUERS, enabled: false, resource_uri: "https://airlock.example.com" },
    ]) {
      const app = await appWith(metadataOf(oidc));
      const response = await app.inject({ method: "GET", url: "/.well-known/oauth-protected-resource" });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: "not_found" });
    }
  });

  it("follows a getter, so a reloaded configuration shows at once", async () => {
    let current: ProtectedResourceMetadata | null = null;
    const app = await appWith(() => current);
    const url = "/.well-known/oauth-protected-resource";
    expect((await app.inject({ method: "GET", url })).statusCode).toBe(404);
    current = {
      resource: "https://airlock.example.com/mcp",
      authorizationServers: ["https://idp.example.com"],
    };
    expect((await app.inject({ method: "GET", url })).json()).toMatchObject({
      authorization_servers: ["https://idp.example.com"],
    });
  });

  it("builds the metadata URL a WWW-Authenticate challenge advertises", () => {
    expect(protectedResourceMetadataUrl("https://airlock.example.com/mcp")).toBe(
      "https://airlock.example.com/.well-known/oauth-protected-resource/mcp",
    );
    expect(protectedResourceMetadataUrl("https://airlock.example.com/")).toBe(
      "https://airlock.example.com/.well-known/oauth-protected-resource",
    );
    expect(protectedResourceMetadataUrl("http://localhost:8080/a/b/")).toBe(
      "http://localhost:8080/.well-known/oauth-protected-resource/a/b",
    );
  });
});
