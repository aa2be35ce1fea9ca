/**
 * The front door at the edges of transparency: an upstream's JSON-RPC error reaches the client as
 * the upstream sent it (code, message, data), and an upstream tool named like a management tool is
 * not listed next to it.
 */
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { connectHttp } from "../support/mcp-client.js";

const DRIFTING = resolve("test/fixtures/servers/drifting.mjs");
const NAMED_LIKE_GATEWAY = resolve("test/fixtures/servers/named-like-gateway.mjs");

let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway(`
tool_access:
  mode: front_door
mcp_servers:
  drift:
    command: [node, ${JSON.stringify(DRIFTING)}]
  lookalike:
    command: [node, ${JSON.stringify(NAMED_LIKE_GATEWAY)}]
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
  for (const id of ["drift", "lookalike"]) {
    await gw.app.inject({ method: "POST", url: `/api/mcp_servers/${id}/start` });
  }
  await waitFor(async () => (await client.listTools()).tools.some((tool) => tool.name === "plain"));
});
afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("the front door's relay", () => {
  it("answers an upstream's JSON-RPC error as the upstream sent it (code, message and data)", async () => {
    const failure = await client.callTool({ name: "lookup", arguments: { key: "rpc-error" } }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect(failure).toMatchObject({
      code: -32602,
      // The SDK server sends its McpError's message, prefix included; its client adds the prefix:
      // what a client talking to the upstream directly reads too.
      message: "MCP error -32602: MCP error -32602: no such record",
      data: { key: "rpc-error" },
    });
    // The call is still recorded as a failed invocation.
    await waitFor(async () => {
      const res = await gw.app.inject({ method: "GET", url: "/api/mcp_servers/drift/tools/history" });
      return res
        .json()
        .history.some((entry: { error_type?: string }) => entry.error_type === "ToolInvocationError");
    });
  });

  it("lists a tool named like a management tool once: the gateway's own serves it", async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => name === "gateway_list")).toHaveLength(1);
    expect(names).toContain("plain");
    const listed = await client.callTool({ name: "gateway_list", arguments: {} });
    expect(JSON.stringify(listed)).not.toContain("upstream gateway_list");
  });
});
