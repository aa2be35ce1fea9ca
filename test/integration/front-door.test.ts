import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARITHMETIC, CONTROLLABLE, startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { rawInitialize, type ToolResult } from "../support/mcp-client.js";

const RICH = resolve("test/fixtures/servers/rich.mjs");

const yaml = `
tool_access:
  mode: front_door
mcp_servers:
  math:
    command: [node, ${JSON.stringify(ARITHMETIC)}]
  rich:
    command: [node, ${JSON.stringify(RICH)}]
  twin:
    command: [node, ${JSON.stringify(RICH)}]
    env: {RICH_PREFIX: twin}
    tools:
      deny_list: [fail]
  ctl-pool:
    mode: group
    strategy: round_robin
    members:
      - id: ctl-a
        command: [node, ${JSON.stringify(CONTROLLABLE)}]
      - id: ctl-b
        command: [node, ${JSON.stringify(CONTROLLABLE)}]
    tools:
      deny_list: [crash]
`;

let gw: TestGateway;
let baseUrl: string;
let client: Client;
const logs: unknown[] = [];
let listChanged = 0;

/** A client declaring sampling, elicitation and roots, answering them as a user would. */
async function connectClient(): Promise<Client> {
  const c = new Client(
    { name: "front-door-tests", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  c.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "four" },
    model: "test-model",
  }));
  c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
  c.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///work", name: "work" }],
  }));
  await c.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
  return c;
}

const textOf = (result: unknown) => (result as ToolResult).content[0]?.text;

beforeAll(async () => {
  gw = await startTestGateway(yaml);
  baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  gw.gateway.startBackground();
  client = await connectClient();
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
    logs.push(n.params);
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    listChanged++;
  });
  await waitFor(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    // `fail` is offered by `rich` alone (`twin` denies it): `shout` may be listed before `rich` is.
    return ["shout", "echo", "add", "fail"].every((name) => names.includes(name));
  }, 20_000);
}, 40_000);

afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("front door: tools", () => {
  it("declares listChanged and lists management tools besides upstream tools by their own names", async () => {
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["add", "shout", "echo", "gateway_list", "gateway_status"]));
    expect(names).not.toContain("gateway_call");
    expect(names).not.toContain("gateway_fetch_continuation");
    expect(names).not.toContain("gateway_delete_continuation");
    expect(names.filter((n) => n.startsWith("gateway_"))).toHaveLength(19);
    // The group's deny list hides `crash`; the upstream's own fields are kept.
    expect(names).not.toContain("crash");
    const shout = tools.find((t) => t.name === "shout");
    expect(shout).toMatchObject({ title: "Shout", annotations: { readOnlyHint: true } });
    // Two servers offer `shout`: it is listed once.
    expect(names.filter((n) => n === "shout")).toHaveLength(1);
  });

  it("forwards tools/call unchanged, including an upstream error result", async () => {
    expect(textOf(await client.callTool({ name: "shout", arguments: { message: "hi" } }))).toBe("HI");
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    const failed = (await client.callTool({ name: "fail", arguments: {} })) as ToolResult;
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "it broke" }] });
  });

  it("refuses a management tool's unknown server id before running it, as on the egress", async () => {
    for (const tool of ["gateway_start", "gateway_stop", "gateway_tools", "gateway_details"]) {
      const result = (await client.callTool({
        name: tool,
        arguments: { mcp_server: "ghost" },
      })) as ToolResult;
      expect([tool, result.isError]).toEqual([tool, true]);
      expect(textOf(result)).toBe(`Error executing tool ${tool}: unknown_mcp_server: ghost`);
    }
  });

  it("routes a group's tool to a member and answers -32601 for unknown and denied tools", async () => {
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "pool" } }))).toBe("pool");
    for (const name of ["no_such_tool", "crash"]) {
      const error = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32601);
    }
  });

  it("serves the management tools on the front door", async () => {
    const result = (await client.callTool({ name: "gateway_list", arguments: {} })) as ToolResult;
    const json = JSON.parse(result.content[0]?.text ?? "{}");
    expect(json.mcp_servers.map((s: { mcp_server_id: string }) => s.mcp_server_id)).toContain("rich");
    expect(json.groups.map((g: { group_id: string }) => g.group_id)).toContain("ctl-pool");
  });

  it("relays progress under the client's token, and logging on the request", async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: "count", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(textOf(result)).toBe("counted 3");
    expect(seen).toEqual([1, 2, 3]);
    await client.callTool({ name: "log", arguments: {} });
    await waitFor(() => logs.some((l) => (l as { data?: unknown }).data === "hello from rich"));
  });

  it("relays sampling, elicitation and roots requests to the client", async () => {
    expect(textOf(await client.callTool({ name: "sample", arguments: {} }))).toBe("model said: four");
    expect(textOf(await client.callTool({ name: "ask", arguments: {} }))).toBe("accept: Ada");
    expect(JSON.parse(textOf(await client.callTool({ name: "roots", arguments: {} })) ?? "[]")).toEqual([
      { uri: "file:///work", name: "work" },
    ]);
  });

  it("refuses a relayed request the client did not declare the capability for", async () => {
    const bare = new Client({ name: "bare", version: "1.0.0" });
    await bare.connect(new StreamableHTTPClientTransport(new URL("/mcp", baseUrl)));
    try {
      const result = await bare.callTool({ name: "sample", arguments: {} }).catch((e: unknown) => e);
      // The upstream's own request failed, so the upstream tool reports an error: the gateway's
      // refusal, the client never having been asked.
      const text = result instanceof McpError ? result.message : JSON.stringify(result);
      expect(text).toContain("The client does not support sampling/createMessage (no sampling capability)");
    } finally {
      await bare.close();
    }
  });

  it("forwards cancellation: the upstream request ends when the client cancels", async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: "sleep", arguments: { ms: 10_000 } }, undefined, {
      signal: controller.signal,
    });
    const members = ["ctl-a", "ctl-b"].map((id) => gw.gateway.services.fleet.require(id));
    await waitFor(() => members.some((m) => m.inFlight > 0));
    controller.abort("changed my mind");
    await expect(call).rejects.toThrow();
    await waitFor(() => members.every((m) => m.inFlight === 0), 3_000);
  });

  it("sends notifications/tools/list_changed when an upstream's tools change", async () => {
    const before = listChanged;
    // `grow` adds a tool on the server that serves it; the SDK announces it with list_changed.
    expect(textOf(await client.callTool({ name: "grow", arguments: {} }))).toBe("grown");
    await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === "extra"), 15_000);
    await waitFor(() => listChanged > before, 15_000);
    expect(textOf(await client.callTool({ name: "extra", arguments: {} }))).toBe("extra!");
  });
});

describe("front door: resources, prompts, completion, logging", () => {
  it("lists resources and templates of every server and reads each from its owner", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(["rich://readme", "twin://readme"]));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(["rich://items/{id}", "twin://items/{id}"]),
    );
    const twin = await client.readResource({ uri: "twin://readme" });
    expect(twin.contents[0]).toMatchObject({ text: "readme of twin" });
    const item = await client.readResource({ uri: "rich://items/42" });
    expect(item.contents[0]).toMatchObject({ text: "item 42" });
  });

  it("reads a resource named by a resource link of a tool result", async () => {
    const result = (await client.callTool({ name: "link", arguments: {} })) as {
      content: { type: string; uri?: string }[];
    };
    const uri = result.content[0]?.uri ?? "";
    const read = await client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ text: "hidden but linked" });
  });

  it("hides ui:// resources off the caller's tenant allowlist, and answers a read of one like a missing resource", async () => {
    // Authentication is off: callers have no tenant, whose allowlist is empty (spec 2 ui_resources).
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).not.toContain("ui://rich/widget");
    const error = await client.readResource({ uri: "ui://rich/widget" }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32002);
  });

  it("answers -32002 for a resource nobody owns", async () => {
    const error = await client.readResource({ uri: "nowhere://x" }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32002);
  });

  it("subscribes and unsubscribes through the owner", async () => {
    await expect(client.subscribeResource({ uri: "rich://readme" })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: "rich://readme" })).resolves.toEqual({});
  });

  it("lists prompts and gets one from its owner", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["rich-greet", "twin-greet"]));
    const prompt = await client.getPrompt({ name: "twin-greet", arguments: { name: "Bob" } });
    expect(prompt.messages[0]?.content).toMatchObject({ type: "text", text: "Hello Bob" });
  });

  it("completes a template argument through its owner", async () => {
    const result = await client.complete({
      ref: { type: "ref/resource", uri: "rich://items/{id}" },
      argument: { name: "id", value: "1" },
    });
    expect(result.completion.values).toEqual(["1", "10"]);
  });

  it("relays logging/setLevel", async () => {
    await expect(client.setLoggingLevel("warning")).resolves.toEqual({});
  });
});

describe("front door: the HTTP endpoint", () => {
  it("opens the GET SSE stream instead of answering 405", async () => {
    const init = await rawInitialize(baseUrl);
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    await init.text();
    const controller = new AbortController();
    const stream = await fetch(new URL("/mcp", baseUrl), {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
      },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    controller.abort();
    await fetch(new URL("/mcp", baseUrl), { method: "DELETE", headers: { "mcp-session-id": session } });
  });
});
