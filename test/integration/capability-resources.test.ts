import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/gateway.js";
import { connectHttp } from "../support/mcp-client.js";

/** Resources of a server held to its declared `capabilities.resources` on the front door. */
const RICH = resolve("test/fixtures/servers/rich.mjs");

let gw: TestGateway;
let client: Client;

beforeAll(async () => {
  gw = await startTestGateway(`
tool_access: {mode: front_door}
mcp_servers:
  rich:
    command: [node, ${JSON.stringify(RICH)}]
    capabilities: {resources: ["rich://readme", "rich://items/{id}"], enforcement_mode: block}
  twin:
    command: [node, ${JSON.stringify(RICH)}]
    env: {RICH_PREFIX: twin}
    capabilities: {resources: ["twin://readme"], enforcement_mode: warn}
`);
  client = await connectHttp(await gw.app.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await client?.close();
  await gw.close();
});

const reported = (server: string, uri: string) =>
  gw.gateway.services.fleet
    .require(server)
    .logs.tail(100)
    .filter((line) => line.content.includes(`undeclared resources`) && line.content.includes(uri)).length;

describe("declared capabilities.resources on the front door", () => {
  it("hides and refuses an undeclared resource under block, reporting it once", async () => {
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain("rich://readme");
    expect(uris).not.toContain("rich://hidden/1");
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("rich://items/{id}");
    const read = await client.readResource({ uri: "rich://hidden/1" }).catch((e: unknown) => e);
    expect((read as McpError).code).toBe(-32002);
    expect((await client.readResource({ uri: "rich://readme" })).contents).toHaveLength(1);
    // A declared URI template stands for the URIs it expands to.
    expect((await client.readResource({ uri: "rich://items/7" })).contents[0]).toMatchObject({
      uri: "rich://items/7",
    });
    await client.listResources();
    expect(reported("rich", "rich://hidden/1")).toBe(1);
  });

  it("serves an undeclared resource under warn and reports it", async () => {
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain("twin://hidden/1");
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("twin://items/{id}");
    expect(reported("twin", "twin://items/{id}")).toBe(1);
    const read = await client.readResource({ uri: "twin://hidden/1" });
    expect(read.contents[0]).toMatchObject({ uri: "twin://hidden/1" });
    expect(reported("twin", "twin://hidden/1")).toBe(1);
  });
});
