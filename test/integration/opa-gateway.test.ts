/**
 * The external policy engine as a gateway asks it: every query of a request carries the request's
 * route and named resource, and the roles the principal holds, so a policy keyed on them decides.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../support/api-keys.js";
import { fleetYaml, startTestGateway, type TestGateway } from "../support/gateway.js";
import { callJson, connect } from "../support/mcp-client.js";
import { type OpaServer, startOpaServer } from "../support/opa-server.js";

let opa: OpaServer;
let gw: TestGateway;
let base: string;
let key: string;

type Input = Record<string, unknown> & { principal: { roles: string[] } };
const inputs = () => opa.requests.map((request) => (request.body as { input: Input }).input);

beforeAll(async () => {
  opa = await startOpaServer();
  gw = await startTestGateway(`
auth:
  enabled: true
  opa: {enabled: true, url: "${opa.url}"}
  role_assignments:
    - {principal: carol, role: developer}
${fleetYaml()}`);
  key = await createApiKey(gw, "carol");
  base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await gw?.close();
  await opa?.close();
});
afterEach(() => {
  opa.requests.length = 0;
  opa.behave({ kind: "result", value: true });
});

describe("a gateway asking the OPA policy engine", () => {
  it("names the REST route and the path's id in every query, so a policy keyed on the route allows", async () => {
    opa.behave({ kind: "policy", allow: (input) => input.route !== null });
    const listed = await gw.app.inject({
      method: "GET",
      url: "/api/mcp_servers/",
      headers: { "x-api-key": key },
    });
    expect(listed.statusCode).toBe(200);
    const started = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/math/start",
      headers: { "x-api-key": key },
    });
    expect(started.statusCode).toBe(200);
    expect(inputs().length).toBeGreaterThan(0);
    expect(inputs().map((input) => input.route)).not.toContain(null);
    expect(inputs().at(-1)).toMatchObject({
      permission: "mcp_servers:lifecycle",
      resource_id: "math",
      route: "POST /mcp_servers/:id/start",
    });
  });

  it("lists the roles assigned to the principal, not only those its credential declares", async () => {
    await gw.app.inject({ method: "GET", url: "/api/mcp_servers/", headers: { "x-api-key": key } });
    expect(inputs()[0]?.principal).toEqual({
      id: "carol",
      type: "api_key",
      tenant_id: null,
      roles: ["developer"],
    });
  });

  it("names the tool as the route and its server as the resource over MCP", async () => {
    opa.behave({ kind: "policy", allow: (input) => input.route !== null });
    const client = await connect(
      new StreamableHTTPClientTransport(new URL("/mcp", base), {
        requestInit: { headers: { "x-api-key": key } },
      }),
    );
    try {
      const { isError } = await callJson(client, "gateway_tools", { mcp_server: "math" });
      expect(isError).toBe(false);
      expect(inputs().map((input) => input.route)).not.toContain(null);
      expect(inputs().at(-1)).toMatchObject({ route: "mcp:gateway_tools", resource_id: "math" });
    } finally {
      await client.close();
    }
  });

  it("names the permission the roles lack when the engine refuses, after one query per permission", async () => {
    opa.behave({ kind: "result", value: false });
    const refused = await gw.app.inject({
      method: "POST",
      url: "/api/mcp_servers/math/stop",
      headers: { "x-api-key": key },
    });
    expect(refused.statusCode).toBe(403);
    expect(opa.requests).toHaveLength(1);
  });
});
