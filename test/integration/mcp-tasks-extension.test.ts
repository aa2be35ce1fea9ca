import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway, waitFor } from "../support/gateway.js";
import { connectHttp } from "../support/mcp-client.js";
import { envelope, statelessPost } from "../support/stateless-post.js";
import { startTasksUpstream } from "../support/tasks-upstream.js";

/**
 * The tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`), relayed between a
 * stateless client and an upstream of that revision: the client's declaration reaches the upstream,
 * the upstream's task comes back under a handle of the gateway's, and `tasks/get`, `tasks/update`
 * and `tasks/cancel` by that handle reach the task on its server.
 */

const TASKS = "io.modelcontextprotocol/tasks";
const withTasks = () => ({ meta: envelope({ extensions: { [TASKS]: {} } }) });

type Upstream = Awaited<ReturnType<typeof startTasksUpstream>>;

/**
 * A gateway (configuration `extra` besides the front door) with the tasks upstream as its server
 * `jobs`, started before the tests of the enclosing `describe` and stopped after them.
 */
function gatewayWithUpstream(extra = "") {
  const context = {} as { upstream: Upstream; gw: TestGateway; baseUrl: string };
  beforeAll(async () => {
    context.upstream = await startTasksUpstream();
    context.gw = await startTestGateway(`
tool_access: {mode: front_door}
${extra}
mcp_servers:
  jobs:
    mode: remote
    endpoint: ${JSON.stringify(context.upstream.url)}
`);
    context.baseUrl = await context.gw.app.listen({ host: "127.0.0.1", port: 0 });
    context.gw.gateway.startBackground();
    await waitFor(async () => {
      const detail = (await context.gw.app.inject({ method: "GET", url: "/api/mcp_servers/jobs" })).json();
      return detail.meta?.protocol_version === "2026-07-28";
    }, 20_000);
  }, 30_000);
  afterAll(async () => {
    await context.gw?.close();
    await context.upstream?.stop();
  });
  return context;
}

describe("the tasks extension, relayed for clients and upstreams of revision 2026-07-28", () => {
  const context = gatewayWithUpstream();

  it("is offered by server/discover", async () => {
    const discovered = await statelessPost(context.baseUrl, "server/discover");
    expect(discovered.body.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
  });

  it("hands the upstream's task to the client under a handle, which tasks/get follows to its result", async () => {
    const created = await statelessPost(
      context.baseUrl,
      "tools/call",
      { name: "slow_job", arguments: { ms: 100 } },
      withTasks(),
    );
    const result = created.body.result ?? {};
    expect(result).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 20 });
    const handle = String(result.taskId);
    expect(handle).toMatch(/^task\./);
    // The upstream heard the client's declaration, under its own id.
    const call = context.upstream.seen.filter((request) => request.method === "tools/call").at(-1);
    expect(call?.params._meta).toMatchObject({
      "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
    });

    let task: Record<string, unknown> = {};
    await waitFor(async () => {
      const polled = await statelessPost(context.baseUrl, "tasks/get", { taskId: handle }, withTasks());
      task = polled.body.result ?? {};
      return task.status === "completed";
    }, 5_000);
    expect(task).toMatchObject({ resultType: "complete", taskId: handle, status: "completed" });
    expect(task.result).toMatchObject({
      content: [{ type: "text", text: expect.stringMatching(/^job \d+ done$/) }],
    });
    // The upstream was asked for its own task, its id in `Mcp-Name` as in the body.
    const get = context.upstream.seen.filter((request) => request.method === "tasks/get").at(-1);
    expect(get?.params.taskId).toMatch(/^upstream-task-\d+$/);
    expect(get?.mcpName).toBe(get?.params.taskId);
  });

  it("relays tasks/update and tasks/cancel to the task's server", async () => {
    const created = await statelessPost(
      context.baseUrl,
      "tools/call",
      { name: "slow_job", arguments: { ms: 60_000 } },
      withTasks(),
    );
    const handle = String(created.body.result?.taskId);
    const updated = await statelessPost(
      context.baseUrl,
      "tasks/update",
      { taskId: handle, inputResponses: { confirm: { action: "accept" } } },
      withTasks(),
    );
    expect(updated.body.result).toMatchObject({ resultType: "complete" });
    const cancelled = await statelessPost(context.baseUrl, "tasks/cancel", { taskId: handle }, withTasks());
    expect(cancelled.body.result).toMatchObject({ resultType: "complete" });
    const polled = await statelessPost(context.baseUrl, "tasks/get", { taskId: handle }, withTasks());
    expect(polled.body.result).toMatchObject({ taskId: handle, status: "cancelled" });
    const update = context.upstream.seen.find((request) => request.method === "tasks/update");
    expect(update?.params).toMatchObject({ inputResponses: { confirm: { action: "accept" } } });
  });

  it("answers a handle it did not issue, or one that was changed, as an unknown task", async () => {
    const created = await statelessPost(
      context.baseUrl,
      "tools/call",
      { name: "slow_job", arguments: { ms: 10 } },
      withTasks(),
    );
    const handle = String(created.body.result?.taskId);
    const [kind, body, mac] = handle.split(".");
    const payload = JSON.parse(Buffer.from(String(body), "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...payload, task: "upstream-task-1" })).toString("base64url");
    const asked = context.upstream.seen.length;
    for (const taskId of ["upstream-task-1", `${kind}.${forged}.${mac}`]) {
      const polled = await statelessPost(context.baseUrl, "tasks/get", { taskId }, withTasks());
      expect(polled.body.error).toMatchObject({ code: -32602, message: `Task not found: ${taskId}` });
    }
    expect(context.upstream.seen.length).toBe(asked);
  });

  it("refuses tasks/get whose Mcp-Name is not its task id", async () => {
    const polled = await statelessPost(
      context.baseUrl,
      "tasks/get",
      { taskId: "task.x.y" },
      { ...withTasks(), headers: { "mcp-name": "another" } },
    );
    expect(polled.status).toBe(400);
    expect(polled.body.error?.code).toBe(-32020);
  });

  it("gets the upstream's plain result for a client that does not declare the extension", async () => {
    const answered = await statelessPost(context.baseUrl, "tools/call", { name: "slow_job", arguments: {} });
    expect(answered.body.result).toMatchObject({ resultType: "complete", content: [{ type: "text" }] });
    const call = context.upstream.seen.filter((request) => request.method === "tools/call").at(-1);
    expect(call?.params._meta).toMatchObject({ "io.modelcontextprotocol/clientCapabilities": {} });
    expect(JSON.stringify(call?.params._meta)).not.toContain(TASKS);
  });
});

describe("the tasks extension, for callers that cannot follow a task", () => {
  const context = gatewayWithUpstream();

  it("is not declared upstream for a session's client, which gets the plain result", async () => {
    const client = await connectHttp(context.baseUrl);
    try {
      const result = await client.callTool({ name: "slow_job", arguments: {} });
      expect(result).toMatchObject({ content: [{ type: "text" }] });
    } finally {
      await client.close();
    }
    const calls = context.upstream.seen.filter((request) => request.method === "tools/call");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) expect(JSON.stringify(call.params._meta)).not.toContain(TASKS);
  });
});

describe("the tasks extension with relay_tasks_enabled: false", () => {
  const context = gatewayWithUpstream("relay_tasks_enabled: false");

  it("is neither offered nor declared upstream, so the client gets the plain result", async () => {
    const discovered = await statelessPost(context.baseUrl, "server/discover");
    expect(JSON.stringify(discovered.body.result?.capabilities ?? {})).not.toContain(TASKS);
    const answered = await statelessPost(
      context.baseUrl,
      "tools/call",
      { name: "slow_job", arguments: {} },
      withTasks(),
    );
    expect(answered.body.result).toMatchObject({ resultType: "complete", content: [{ type: "text" }] });
    const call = context.upstream.seen.filter((request) => request.method === "tools/call").at(-1);
    expect(JSON.stringify(call?.params._meta)).not.toContain(TASKS);
    const polled = await statelessPost(context.baseUrl, "tasks/get", { taskId: "task.x.y" }, withTasks());
    expect(polled.body.error?.code).toBe(-32602);
  });
});
