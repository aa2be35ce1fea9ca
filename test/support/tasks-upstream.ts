import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

const REVISION = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** A request the upstream received: its method, `Mcp-Name` header and params. */
export interface SeenRequest {
  method: string;
  mcpName: string | undefined;
  params: Record<string, unknown>;
}

interface Task {
  taskId: string;
  status: "working" | "completed" | "cancelled";
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
}

/**
 * An MCP server of revision 2026-07-28 over streamable HTTP that offers the tasks extension
 * (`io.modelcontextprotocol/tasks`): its tool `slow_job` answers a client that declares the
 * extension with a task (`resultType: "task"`), completed `ms` milliseconds later, and any other
 * client at once. It serves `tasks/get`, `tasks/update` and `tasks/cancel`, and keeps every request
 * it received in `seen`.
 */
export async function startTasksUpstream() {
  const seen: SeenRequest[] = [];
  const tasks = new Map<string, Task>();
  let count = 0;

  const answer = (message: { id?: unknown; method: string; params?: Record<string, unknown> }) => {
    const params = message.params ?? {};
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const declared = (meta[CAPABILITIES] ?? {}) as { extensions?: Record<string, unknown> };
    const task = typeof params.taskId === "string" ? tasks.get(params.taskId) : undefined;
    switch (message.method) {
      case "server/discover":
        return {
          resultType: "complete",
          supportedVersions: [REVISION],
          capabilities: { tools: {}, extensions: { [TASKS]: {} } },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "tasks-upstream", version: "1.0.0" } },
        };
      case "tools/list":
        return {
          resultType: "complete",
          tools: [
            { name: "slow_job", inputSchema: { type: "object", properties: { ms: { type: "number" } } } },
          ],
          ttlMs: 0,
          cacheScope: "private",
        };
      case "tools/call": {
        const result = { content: [{ type: "text", text: `job ${++count} done` }] };
        if (declared.extensions?.[TASKS] === undefined) return { resultType: "complete", ...result };
        const now = new Date().toISOString();
        const created: Task = {
          taskId: `upstream-task-${count}`,
          status: "working",
          createdAt: now,
          lastUpdatedAt: now,
          ttlMs: 60_000,
          pollIntervalMs: 20,
        };
        tasks.set(created.taskId, created);
        const ms = Number((params.arguments as { ms?: unknown } | undefined)?.ms ?? 50);
        setTimeout(() => {
          if (created.status !== "working") return;
          Object.assign(created, { status: "completed", result, lastUpdatedAt: new Date().toISOString() });
        }, ms).unref();
        return { resultType: "task", ...created };
      }
      case "tasks/get":
        return task ? { resultType: "complete", ...task } : undefined;
      case "tasks/update":
        return task ? { resultType: "complete" } : undefined;
      case "tasks/cancel":
        if (!task) return undefined;
        if (task.status === "working") Object.assign(task, { status: "cancelled" });
        return { resultType: "complete" };
      default:
        return null;
    }
  };

  const server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const message = JSON.parse(await bodyOf(req)) as {
      id?: unknown;
      method: string;
      params?: Record<string, unknown>;
    };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const mcpName = req.headers["mcp-name"];
    seen.push({
      method: message.method,
      mcpName: typeof mcpName === "string" ? mcpName : undefined,
      params: message.params ?? {},
    });
    const result = answer(message);
    const body =
      result === null
        ? {
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32601, message: `Method not found: ${message.method}` },
          }
        : result === undefined
          ? { jsonrpc: "2.0", id: message.id, error: { code: -32602, message: "Task not found" } }
          : { jsonrpc: "2.0", id: message.id, result };
    res
      .writeHead(result === null ? 404 : 200, { "content-type": "application/json" })
      .end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    tasks,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
