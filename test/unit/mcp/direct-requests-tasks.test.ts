import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { DirectRequests } from "../../../src/adapters/upstream/session/direct-requests.js";

/** A transport that keeps what is sent; the test answers by handing messages to the lane. */
function recording(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return {
    sent,
    async start() {},
    async send(message: JSONRPCMessage) {
      sent.push(message);
    },
    async close() {},
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("DirectRequests, following tasks", () => {
  it("follows at most 1,000 tasks' progress per connection, dropping the oldest", async () => {
    const transport = recording();
    let next = 0;
    const lane = new DirectRequests(transport, () => next++);
    const heard: number[] = [];
    const calls: Promise<unknown>[] = [];
    for (let task = 0; task < 1001; task++) {
      calls.push(
        lane.request("tools/call", { name: "job" }, { timeoutMs: 5_000, onProgress: () => heard.push(task) }),
      );
      // Answered with a task the upstream never reports finished.
      lane.take({ jsonrpc: "2.0", id: task, result: { task: { taskId: `t${task}`, status: "working" } } });
    }
    await Promise.all(calls);
    for (const token of [0, 1, 1000]) {
      lane.take({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: 1 },
      });
    }
    await turn();
    // The first task's listener went when the 1,001st came; the others are still heard.
    expect(heard).toEqual([1, 1000]);
  });
});
