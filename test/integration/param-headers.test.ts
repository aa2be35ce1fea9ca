import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import type { ToolResult } from "../support/mcp-client.js";

const DRIFTING = resolve("test/fixtures/servers/drifting.mjs");

/** An SDK client whose requests carry `headers` as they are when each request is sent. */
async function clientWithHeaders(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "param-header-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
      fetch: (input, init) => {
        const merged = new Headers(init?.headers);
        for (const [name, value] of Object.entries(headers)) merged.set(name, value);
        return fetch(input, { ...init, headers: merged });
      },
    }),
  );
  return client;
}

const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

/** The JSON-RPC error a call ends with, or null when it succeeded. */
async function rpcError(promise: Promise<unknown>): Promise<McpError | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
}

const textOf = (result: unknown) => (result as ToolResult).content[0]?.text;

async function gateway(yaml: string) {
  const gw = await startTestGateway(yaml);
  const baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  gw.gateway.startBackground();
  return { gw, baseUrl };
}

const frontDoor = (required: boolean) => `
tool_access: {mode: front_door}
headers: {param_validation: {required: ${required}}}
mcp_servers:
  drift:
    command: [node, ${JSON.stringify(DRIFTING)}]
    header_exposure: {deny_annotated: ["options.*"], on_violation: warn}
`;

const QUERY = { region: "us-west1", sql: "select 1", options: { priority: 42, dry_run: false } };

describe("Mcp-Param headers on the front door", () => {
  let gw: TestGateway;
  let client: Client;
  const headers: Record<string, string> = {};
  beforeAll(async () => {
    let baseUrl: string;
    ({ gw, baseUrl } = await gateway(frontDoor(false)));
    client = await clientWithHeaders(baseUrl, headers);
    await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === "query"), 20_000);
  });
  afterAll(async () => {
    await client?.close();
    await gw?.close();
  });
  const set = (next: Record<string, string>) => {
    for (const key of Object.keys(headers)) delete headers[key];
    Object.assign(headers, next);
  };

  it("lists the upstream's x-mcp-header annotations unchanged, for clients to mirror", async () => {
    const query = (await client.listTools()).tools.find((t) => t.name === "query");
    expect(query?.inputSchema.properties?.region).toMatchObject({ "x-mcp-header": "Region" });
  });

  it("serves a call whose headers match its arguments (case, Base64 and integer forms)", async () => {
    set({ "Mcp-Param-Region": "us-west1", "mcp-param-priority": "42", "MCP-PARAM-DRYRUN": "false" });
    expect(textOf(await client.callTool({ name: "query", arguments: QUERY }))).toBe("us-west1:select 1");
    set({ "Mcp-Param-Region": b64("us-west1"), "Mcp-Param-Priority": "42.0", "Mcp-Param-DryRun": "false" });
    expect(textOf(await client.callTool({ name: "query", arguments: QUERY }))).toBe("us-west1:select 1");
  });

  it("answers -32020 HEADER_MISMATCH when a header disagrees with the body, and calls nothing", async () => {
    const calls = () => gw.gateway.services.fleet.require("drift").stats.total_invocations;
    const before = calls();
    const mismatches: Record<string, string>[] = [
      { "Mcp-Param-Region": "eu-west1" },
      { "Mcp-Param-Region": "us-west1", "Mcp-Param-Priority": "7" },
      { "Mcp-Param-Region": "us-west1", "Mcp-Param-DryRun": "true" },
    ];
    for (const mismatch of mismatches) {
      set(mismatch);
      const error = await rpcError(client.callTool({ name: "query", arguments: QUERY }));
      expect(error?.code).toBe(-32020);
      expect(error?.message).toContain("HEADER_MISMATCH");
      expect(error?.data).toMatchObject({ error_type: "HEADER_MISMATCH", problem: "mismatch" });
      // Values never come back in the answer.
      expect(error?.message).not.toContain("eu-west1");
    }
    set({ "Mcp-Param-Region": "us-west1" });
    const absent = await rpcError(client.callTool({ name: "query", arguments: { sql: "select 1" } }));
    expect(absent?.code).toBe(-32020);
    expect(calls()).toBe(before);
  });

  it("serves a call without headers while validation is not required (clients that mirror nothing)", async () => {
    set({});
    expect(textOf(await client.callTool({ name: "query", arguments: QUERY }))).toBe("us-west1:select 1");
    set({ "Mcp-Param-Unknown": "x" });
    expect(textOf(await client.callTool({ name: "stable", arguments: {} }))).toBe("ok");
  });
});

describe("Mcp-Param headers with param_validation.required", () => {
  let gw: TestGateway;
  let egress: TestGateway;
  let client: Client;
  let egressClient: Client;
  const headers: Record<string, string> = {};
  const egressHeaders: Record<string, string> = {};
  beforeAll(async () => {
    let baseUrl: string;
    ({ gw, baseUrl } = await gateway(frontDoor(true)));
    client = await clientWithHeaders(baseUrl, headers);
    await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === "query"), 20_000);
    const started = await gateway(`
headers: {param_validation: {required: true}}
mcp_servers:
  drift:
    command: [node, ${JSON.stringify(DRIFTING)}]
`);
    egress = started.gw;
    egressClient = await clientWithHeaders(started.baseUrl, egressHeaders);
  });
  afterAll(async () => {
    await client?.close();
    await egressClient?.close();
    await gw?.close();
    await egress?.close();
  });

  it("refuses a front-door call whose annotated argument has no header, or that sends an undecodable one", async () => {
    const missing = await rpcError(
      client.callTool({ name: "query", arguments: { region: "us-west1", sql: "s" } }),
    );
    expect(missing?.code).toBe(-32020);
    expect(missing?.data).toMatchObject({ header: "Mcp-Param-Region", problem: "unverifiable" });
    headers["Mcp-Param-Region"] = "=?base64?***?=";
    expect(
      (await rpcError(client.callTool({ name: "query", arguments: { region: "x", sql: "s" } })))?.code,
    ).toBe(-32020);
    headers["Mcp-Param-Region"] = "us-west1";
    const served = await client.callTool({ name: "query", arguments: { region: "us-west1", sql: "s" } });
    expect(textOf(served)).toBe("us-west1:s");
    // A tool that annotates nothing needs no header, but a header it cannot verify is refused.
    delete headers["Mcp-Param-Region"];
    expect(textOf(await client.callTool({ name: "stable", arguments: {} }))).toBe("ok");
    headers["Mcp-Param-Region"] = "us-west1";
    expect((await rpcError(client.callTool({ name: "stable", arguments: {} })))?.code).toBe(-32020);
  });

  it("on the egress endpoint never compares headers with the calls of a gateway_call batch", async () => {
    const batch = {
      calls: [{ mcp_server: "drift", tool: "query", arguments: { region: "us-west1", sql: "s" } }],
    };
    // gateway_call annotates no parameter: the batch runs without headers...
    const ran = (await egressClient.callTool({ name: "gateway_call", arguments: batch })) as ToolResult;
    expect(JSON.parse(ran.content[0]?.text ?? "").results[0]).toMatchObject({ success: true });
    // ...and an Mcp-Param header, which speaks for no call of the batch, is refused as unverifiable.
    egressHeaders["Mcp-Param-Region"] = "us-west1";
    const refused = await rpcError(egressClient.callTool({ name: "gateway_call", arguments: batch }));
    expect(refused?.code).toBe(-32020);
    // HTTP field names arrive in lower case; an unannotated one is named as it arrived.
    expect(refused?.data).toMatchObject({ header: "Mcp-Param-region", problem: "unverifiable" });
  });
});

describe("header_exposure", () => {
  it("withholds a tool with an invalid annotation always, and serves one a warn block denies", async () => {
    const { gw, baseUrl } = await gateway(frontDoor(false));
    const client = await clientWithHeaders(baseUrl, {});
    try {
      await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === "query"), 20_000);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["query", "lookup", "stable"]));
      expect(names).not.toContain("bad_header");
      expect((await rpcError(client.callTool({ name: "bad_header", arguments: {} })))?.code).toBe(-32601);
      expect(textOf(await client.callTool({ name: "query", arguments: { region: "r", sql: "s" } }))).toBe(
        "r:s",
      );
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it("hides a tool a withdraw block denies, from listings and calls, on the front door and in egress", async () => {
    const servers = `
mcp_servers:
  drift:
    command: [node, ${JSON.stringify(DRIFTING)}]
    header_exposure: {deny_annotated: [REGION], on_violation: withdraw}
`;
    const front = await gateway(`tool_access: {mode: front_door}\n${servers}`);
    const egress = await gateway(servers);
    const frontClient = await clientWithHeaders(front.baseUrl, {});
    const egressClient = await clientWithHeaders(egress.baseUrl, {});
    try {
      await waitFor(
        async () => (await frontClient.listTools()).tools.some((t) => t.name === "lookup"),
        20_000,
      );
      expect((await frontClient.listTools()).tools.map((t) => t.name)).not.toContain("query");
      const hidden = await rpcError(
        frontClient.callTool({ name: "query", arguments: { region: "r", sql: "s" } }),
      );
      expect(hidden?.code).toBe(-32601);

      const listed = (await egressClient.callTool({
        name: "gateway_tools",
        arguments: { mcp_server: "drift" },
      })) as ToolResult;
      const tools = JSON.parse(listed.content[0]?.text ?? "").tools.map((t: { name: string }) => t.name);
      expect(tools).toContain("lookup");
      expect(tools).not.toContain("query");
      const batch = { calls: [{ mcp_server: "drift", tool: "query", arguments: { region: "r", sql: "s" } }] };
      const ran = (await egressClient.callTool({ name: "gateway_call", arguments: batch })) as ToolResult;
      expect(JSON.parse(ran.content[0]?.text ?? "").results[0]).toMatchObject({
        success: false,
        error_type: "ToolNotFoundError",
      });
    } finally {
      await frontClient.close();
      await egressClient.close();
      await front.gw.close();
      await egress.gw.close();
    }
  });

  it("refuses to start when a declared tool breaks a refuse_boot block, naming server, tool and rule", async () => {
    const yaml = `
mcp_servers:
  declared:
    command: [node, ${JSON.stringify(DRIFTING)}]
    tools:
      - name: query
        description: Run a query.
        inputSchema: {type: object, properties: {region: {type: string, x-mcp-header: Region}}}
    header_exposure: {deny_annotated: ["reg*"], on_violation: refuse_boot}
`;
    await expect(startTestGateway(yaml)).rejects.toThrow(
      "mcp_servers.declared.tools: tool 'query' exposes property 'region' as header Mcp-Param-Region, " +
        "which header_exposure.deny_annotated 'reg*' denies with on_violation: refuse_boot",
    );
  });
});
