import { describe, expect, it } from "vitest";
import { BatchedWriter } from "../../../src/app/batched-writer.js";

describe("the batched writer", () => {
  it("writes a burst as one batch, in order", async () => {
    const batches: number[][] = [];
    const writer = new BatchedWriter<number>({ write: async (batch) => void batches.push([...batch]) });
    for (let i = 0; i < 5; i++) writer.push(i);
    await writer.flush();
    expect(batches).toEqual([[0, 1, 2, 3, 4]]);
  });

  it("keeps a failed batch, in order before newer items, and reports the failure", async () => {
    const batches: number[][] = [];
    let fail = true;
    const failures: number[] = [];
    const writer = new BatchedWriter<number>({
      write: async (batch) => {
        if (fail) throw new Error("down");
        batches.push([...batch]);
      },
      onFailed: (_error, count) => failures.push(count),
    });
    writer.push(1);
    writer.push(2);
    await writer.flush();
    writer.push(3);
    fail = false;
    await writer.flush();
    expect(failures).toEqual([2]);
    expect(batches).toEqual([[1, 2, 3]]);
    await writer.close();
  });

  it("drops the oldest items past 10,000 pending and says how many", async () => {
    let dropped = 0;
    const writer = new BatchedWriter<number>({
      write: async () => {
        throw new Error("down");
      },
      onDropped: (count) => {
        dropped += count;
      },
    });
    for (let i = 0; i < 10_005; i++) writer.push(i);
    expect(dropped).toBe(5);
    await writer.close();
  });
});
