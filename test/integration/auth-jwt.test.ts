import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { createSigningKey, type JwksServer, startJwksServer } from "../support/jwks-server.js";
import type { ToolResult } from "../support/mcp-client.js";

let idp: JwksServer;
let gw: TestGateway;
let base: string;
const RESOURCE = "https://gateway.example/mcp";

const token = (claims: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return idp.sign({ iss: idp.issuer, aud: RESOURCE, sub: "jwt-user", iat: now, exp: now + 600, ...claims });
};

beforeAll(async () => {
  idp = await startJwksServer("airlock", [await createSigningKey()]);
  gw = await startTestGateway(`
auth:
  enabled: true
  oidc:
    enabled: true
    issuer: ${idp.issuer}
    resource_uri: ${RESOURCE}
${fleetYaml()}`);
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await gw?.close();
  await idp?.close();
});

const get = async (url: string, bearer?: string) =>
  gw.app.inject({ method: "GET", url, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

describe("JWT authentication end to end", () => {
  it("admits a token of the issuer, its groups naming roles", async () => {
    const viewer = await token({ groups: ["viewer"] });
    expect((await get("/api/mcp_servers/", viewer)).statusCode).toBe(200);
    expect((await get("/api/system/me", viewer)).json()).toEqual({
      authenticated: true,
      principal: { id: "jwt-user", type: "jwt" },
    });
    const noRoles = await token({ groups: [] });
    expect((await get("/api/mcp_servers/", noRoles)).statusCode).toBe(403);
  });

  it("refuses a token for another audience, with the challenge naming the metadata document", async () => {
    const response = await get("/api/mcp_servers/", await token({ aud: "https://elsewhere.example" }));
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toContain(
      'resource_metadata="https://gateway.example/.well-known/oauth-protected-resource/mcp"',
    );
    expect(response.json()).toMatchObject({
      error: "authentication_failed",
      details: { auth_method: "jwt" },
    });
  });

  it("serves the RFC 9728 metadata without authentication", async () => {
    const response = await get("/.well-known/oauth-protected-resource/mcp");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [idp.issuer] });
  });

  it("authenticates an MCP session with a bearer token", async () => {
    const bearer = await token({ groups: ["viewer"] });
    const client = new Client({ name: "jwt-tests", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    try {
      const result = (await client.callTool({ name: "gateway_list", arguments: {} })) as ToolResult;
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
  });
});
