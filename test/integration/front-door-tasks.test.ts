import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { connectHttp } from "../support/mcp-client.js";

const TASKS = resolve("test/fixtures/servers/tasks.mjs");
const Any = z.looseObject({});

const yaml = (relay: boolean) => `
relay_tasks_enabled: ${relay}
tool_access:
  mode: front_door
mcp_servers:
  tasks:
    command: [node, ${JSON.stringify(TASKS)}]
`;

let gw: TestGateway | undefined;
let clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close();
  clients = [];
  await gw?.close();
});

async function open(relay: boolean): Promise<Client> {
  gw = await startTestGateway(yaml(relay));
  const baseUrl = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  gw.gateway.startBackground();
  const client = await connectHttp(baseUrl);
  clients.push(client);
  await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === "square"), 20_000);
  return client;
}

describe("front door: the task relay", () => {
  it("relays task creation, status, result and listing to the server that runs the task", async () => {
    const client = await open(true);
    expect(client.getServerCapabilities()?.tasks).toBeDefined();
    const created = await client.request(
      { method: "tools/call", params: { name: "square", arguments: { n: 7 }, task: { ttl: 60_000 } } },
      Any,
    );
    const taskId = (created as { task: { taskId: string } }).task.taskId;
    expect(typeof taskId).toBe("string");
    await waitFor(async () => {
      const task = await client.request({ method: "tasks/get", params: { taskId } }, Any);
      return (task as { status: string }).status === "completed";
    });
    const result = await client.request({ method: "tasks/result", params: { taskId } }, Any);
    expect(result).toMatchObject({ content: [{ type: "text", text: "49" }] });
    const listed = await client.request({ method: "tasks/list", params: {} }, Any);
    expect((listed as { tasks: { taskId: string }[] }).tasks.map((t) => t.taskId)).toContain(taskId);
  });

  it("keeps a session's tasks from another session", async () => {
    const client = await open(true);
    const created = await client.request(
      { method: "tools/call", params: { name: "square", arguments: { n: 2 }, task: { ttl: 60_000 } } },
      Any,
    );
    const taskId = (created as { task: { taskId: string } }).task.taskId;
    const address = gw?.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const other = await connectHttp(`http://127.0.0.1:${port}`);
    clients.push(other);
    const error = await other
      .request({ method: "tasks/get", params: { taskId } }, Any)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
  });

  it("with relay_tasks_enabled false, declares no tasks, runs calls to completion and refuses tasks/*", async () => {
    const client = await open(false);
    expect(client.getServerCapabilities()?.tasks).toBeUndefined();
    const result = await client.request(
      { method: "tools/call", params: { name: "square", arguments: { n: 5 } } },
      Any,
    );
    expect(result).toMatchObject({ content: [{ type: "text", text: "25" }] });
    const error = await client.request({ method: "tasks/list", params: {} }, Any).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32601);
  });
});
