import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RequestStateCodec } from "../../../src/edges/mcp/front-door/request-state.js";
import { TaskHandles } from "../../../src/edges/mcp/front-door/task-handles.js";

const key = randomBytes(32);
const task = {
  server: "jobs",
  tool: "slow_job",
  task: "upstream-task-1",
  principal: "alice",
  tenant: "acme",
};
const alice = { id: "alice", tenant_id: "acme" };

describe("TaskHandles", () => {
  it("opens a handle it sealed, on any instance under the same key, for the principal and tenant it names", async () => {
    const handle = await new TaskHandles(async () => key).seal(task);
    expect(handle).toMatch(/^task\.[\w-]+\.[\w-]+$/);
    const elsewhere = new TaskHandles(async () => key);
    await expect(elsewhere.open(handle, alice)).resolves.toEqual(task);
    await expect(elsewhere.open(handle, { id: "bob", tenant_id: "acme" })).resolves.toBeUndefined();
    await expect(elsewhere.open(handle, { id: "alice", tenant_id: "other" })).resolves.toBeUndefined();
    await expect(elsewhere.open(handle, { id: "alice", tenant_id: null })).resolves.toBeUndefined();
    await expect(new TaskHandles(async () => randomBytes(32)).open(handle, alice)).resolves.toBeUndefined();
  });

  it("names no task for a changed handle, a request state, or something that is no handle", async () => {
    const handles = new TaskHandles(async () => key);
    const handle = await handles.seal(task);
    const [kind, , mac] = handle.split(".");
    const changed = Buffer.from(JSON.stringify({ ...task, server: "other" })).toString("base64url");
    const state = await new RequestStateCodec(async () => key).sign({
      hold: "h",
      principal: "alice",
      method: "tools/call",
      name: "slow_job",
      args: "",
      answers: {},
      expires: Date.now() + 60_000,
    });
    const [, stateBody, stateMac] = state.split(".");
    for (const candidate of [
      `${kind}.${changed}.${mac}`,
      state,
      `task.${stateBody}.${stateMac}`,
      "task",
      7,
      undefined,
    ])
      await expect(handles.open(candidate, alice)).resolves.toBeUndefined();
  });
});
