import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARITHMETIC, startTestGateway, type TestGateway } from "../support/gateway.js";
import { type HttpMcpServer, startHttpMcpServer } from "../support/http-mcp-server.js";
import { callJson, connectHttp } from "../support/mcp-client.js";

/**
 * The MCP revision each upstream's `initialize` settled on, shown in its detail (REST and
 * `gateway_details`): a child process and a remote server over streamable HTTP, both real.
 */
describe("the revision an upstream speaks", () => {
  let remote: HttpMcpServer;
  let gw: TestGateway;
  let baseUrl: string;
  beforeAll(async () => {
    remote = await startHttpMcpServer();
    gw = await startTestGateway(`
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  far:
    mode: remote
    endpoint: ${JSON.stringify(remote.url)}
`);
    baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await gw.close();
    await remote.close();
  });

  it("is absent before the first start, then shown once the server is connected", async () => {
    const before = (await gw.app.inject({ method: "GET", url: "/api/mcp_servers/math" })).json();
    expect(before.meta).toEqual({});
    for (const id of ["math", "far"]) {
      const started = await gw.app.inject({ method: "POST", url: `/api/mcp_servers/${id}/start` });
      expect(started.statusCode, id).toBe(200);
      const detail = (await gw.app.inject({ method: "GET", url: `/api/mcp_servers/${id}` })).json();
      expect(detail.meta.protocol_version, id).toBe("2025-11-25");
    }
  });

  it("is shown by gateway_details as well", async () => {
    const client = await connectHttp(baseUrl);
    try {
      await callJson(client, "gateway_start", { mcp_server: "math" });
      const { json } = await callJson(client, "gateway_details", { mcp_server: "math" });
      expect(json.meta.protocol_version).toBe("2025-11-25");
    } finally {
      await client.close();
    }
  });
});
