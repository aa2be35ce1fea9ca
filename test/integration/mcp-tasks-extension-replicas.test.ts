import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlStore } from "../../src/adapters/store/sql-store.js";
import { createApiKey } from "../support/api-keys.js";
import { describePostgres, freshPostgres } from "../support/backends.js";
import { waitFor } from "../support/gateway.js";
import { type Replica, startReplicas, stopReplicas } from "../support/replicas.js";
import { envelope, statelessPost } from "../support/stateless-post.js";
import { startTasksUpstream } from "../support/tasks-upstream.js";

const TASKS = "io.modelcontextprotocol/tasks";

/**
 * A task of the tasks extension created through one replica and followed through another: the
 * handle carries where the task runs, signed with the key the replicas share in PostgreSQL, and
 * only the principal that created it may follow it.
 */
await describePostgres("the tasks extension across replicas sharing PostgreSQL", () => {
  let store: SqlStore<unknown>;
  let upstream: Awaited<ReturnType<typeof startTasksUpstream>>;
  const replicas: Replica[] = [];
  const keys: Record<string, string> = {};

  const post = (replica: number, principal: string, method: string, params: Record<string, unknown>) =>
    statelessPost((replicas[replica] as Replica).base, method, params, {
      meta: envelope({ extensions: { [TASKS]: {} } }),
      headers: { "x-api-key": keys[principal] as string },
    });

  beforeAll(async () => {
    upstream = await startTasksUpstream();
    store = await freshPostgres();
    const yaml = `
tool_access: {mode: front_door}
auth:
  enabled: true
  role_assignments:
    - {principal: alice, role: service-account}
    - {principal: bob, role: service-account}
mcp_servers:
  jobs:
    mode: remote
    endpoint: ${JSON.stringify(upstream.url)}
`;
    replicas.push(...(await startReplicas(yaml, 2, store)));
    for (const replica of replicas) replica.gateway.startBackground();
    keys.alice = await createApiKey(replicas[0] as Replica, "alice");
    keys.bob = await createApiKey(replicas[0] as Replica, "bob");
  }, 60_000);

  afterAll(async () => {
    await stopReplicas(replicas);
    await store?.close();
    await upstream?.stop();
  });

  it("follows a task created on one replica from the other, for its creator alone", async () => {
    // Both replicas offer the upstream's tool.
    await waitFor(async () => {
      const listed = await Promise.all([0, 1].map((replica) => post(replica, "alice", "tools/list", {})));
      return listed.every((answer) =>
        ((answer.body.result?.tools ?? []) as { name: string }[]).some((tool) => tool.name === "slow_job"),
      );
    }, 20_000);
    const created = await post(0, "alice", "tools/call", { name: "slow_job", arguments: { ms: 50 } });
    expect(created.body.result).toMatchObject({ resultType: "task", status: "working" });
    const handle = String(created.body.result?.taskId);

    let task: Record<string, unknown> = {};
    await waitFor(async () => {
      task = (await post(1, "alice", "tasks/get", { taskId: handle })).body.result ?? {};
      return task.status === "completed";
    }, 5_000);
    expect(task).toMatchObject({ taskId: handle, result: { content: [{ type: "text" }] } });

    const asked = upstream.seen.length;
    for (const replica of [0, 1]) {
      const refused = await post(replica, "bob", "tasks/get", { taskId: handle });
      expect(refused.body.error).toMatchObject({ code: -32602, message: `Task not found: ${handle}` });
    }
    expect(upstream.seen.length).toBe(asked);
  }, 60_000);
});
