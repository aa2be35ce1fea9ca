import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { BatchingAppender } from "../../../src/adapters/store/batching-appender.js";
import { completedEvent, recordingWriter } from "../../support/event-appends.js";

/** A call finishing: appends its event and waits for its commit, as `CommitBeforeAnswer` does. */
function finishCall(appender: BatchingAppender): true | Promise<boolean> {
  appender.append("mcp_server:math", [completedEvent()]);
  return appender.whenCommitted(appender.appendMark());
}

describe("BatchingAppender.whenCommitted", () => {
  it("answers true at once, without a promise, when everything appended is committed", async () => {
    const writer = recordingWriter();
    const appender = new BatchingAppender(writer.write);
    expect(appender.whenCommitted(appender.appendMark())).toBe(true);
    await expect(finishCall(appender)).resolves.toBe(true);
    expect(appender.whenCommitted(appender.appendMark())).toBe(true);
  });

  it("lets 16 calls finishing in one turn share one commit, where 16 flushes write 16 batches", async () => {
    // Each call ends in a callback of its own, as 16 upstream answers read in one turn of the event
    // loop do; the writer completes within microtasks, as better-sqlite3 does.
    const inOneTurn = (finish: () => unknown) =>
      Promise.all(
        Array.from({ length: 16 }, () => new Promise((resolve) => setImmediate(() => resolve(finish())))),
      );
    const writer = recordingWriter();
    const appender = new BatchingAppender(writer.write);
    expect(await inOneTurn(() => finishCall(appender))).toEqual(Array(16).fill(true));
    expect(writer.batches.map((b) => b.length)).toEqual([16]);

    // The same calls waiting with flush(): each starts a write at once, of its own event alone.
    const flushing = recordingWriter();
    const other = new BatchingAppender(flushing.write);
    await inOneTurn(() => {
      other.append("mcp_server:math", [completedEvent()]);
      return other.flush();
    });
    expect(flushing.batches.map((b) => b.length)).toEqual(Array(16).fill(1));
  });

  it("writes what was appended during a write right after it, not after the batch delay", async () => {
    const writer = recordingWriter();
    let release: () => void = () => undefined;
    writer.hold = new Promise((resolve) => {
      release = resolve;
    });
    const appender = new BatchingAppender(writer.write, { batchDelayMs: 60_000, idleCommitAfterMs: 0 });
    const first = finishCall(appender);
    await nextTurn(); // the first batch is being written (held)
    const later = Array.from({ length: 5 }, () => finishCall(appender));
    writer.hold = null;
    release();
    expect(await Promise.all([first, ...later])).toEqual(Array(6).fill(true));
    expect(writer.batches.map((b) => b.length)).toEqual([1, 5]);
  });

  it("does not wait out the batch delay when a caller waits, even right after a write", async () => {
    const writer = recordingWriter();
    // Without a waiter this event would sit for the whole minute of batchDelayMs.
    const appender = new BatchingAppender(writer.write, {
      batchDelayMs: 60_000,
      idleCommitAfterMs: Number.POSITIVE_INFINITY,
    });
    appender.append("s", [completedEvent()]);
    await nextTurn();
    expect(writer.batches).toEqual([]);
    await expect(appender.whenCommitted(appender.appendMark())).resolves.toBe(true);
    expect(writer.batches.map((b) => b.length)).toEqual([1]);
  });

  it("gives up after commitWaitMs while the store fails, reports the failure, and commits the event once the store is back", async () => {
    const writer = recordingWriter();
    writer.fail = true;
    const failures: number[] = [];
    const appender = new BatchingAppender(writer.write, {
      commitWaitMs: 100,
      onError: (_error, failure) => failures.push(failure.attempt),
    });
    expect(appender.commitFailure).toBeNull();
    const began = performance.now();
    await expect(finishCall(appender)).resolves.toBe(false);
    const waited = performance.now() - began;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1_000);
    // Known to be failing: a caller can refuse before it starts anything.
    const failure = appender.commitFailure;
    expect(failure).not.toBeNull();
    expect(failure!.retryInMs).toBeLessThanOrEqual(5_000);
    expect(failures.length).toBeGreaterThanOrEqual(1);
    // Nothing was dropped: once the database is back the queued event is committed.
    writer.fail = false;
    await appender.flush();
    expect(writer.batches.flat()).toHaveLength(1);
    expect(appender.pendingEvents).toBe(0);
    expect(appender.commitFailure).toBeNull();
    await appender.close();
  });

  it("retries a failing batch at once on retryNow instead of at the end of its backoff", async () => {
    const writer = recordingWriter();
    writer.fail = true;
    let attempts = 0;
    const appender = new BatchingAppender(writer.write, { onError: () => (attempts += 1) });
    const committed = finishCall(appender);
    // Let the backoff grow to seconds: the fifth failure waits 800 ms, the next ones longer.
    while (attempts < 5) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      appender.retryNow();
    }
    writer.fail = false;
    const began = performance.now();
    appender.retryNow();
    await expect(committed).resolves.toBe(true);
    expect(performance.now() - began).toBeLessThan(400);
    expect(appender.commitFailure).toBeNull();
    await appender.close();
  });

  it("gives up on each waiter at its own deadline, oldest first", async () => {
    const writer = recordingWriter();
    writer.fail = true;
    const appender = new BatchingAppender(writer.write, { commitWaitMs: 150 });
    const settled: string[] = [];
    const first = (finishCall(appender) as Promise<boolean>).then((ok) => settled.push(`first ${ok}`));
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = (finishCall(appender) as Promise<boolean>).then((ok) => settled.push(`second ${ok}`));
    await new Promise((resolve) => setTimeout(resolve, 110));
    // 190 ms after the first wait began, 110 ms after the second did.
    expect(settled).toEqual(["first false"]);
    await Promise.all([first, second]);
    expect(settled).toEqual(["first false", "second false"]);
    writer.fail = false;
    await appender.close();
    expect(writer.batches.flat()).toHaveLength(2);
  });

  it("answers false to every waiter when close() gives up on a store that stays away", async () => {
    const writer = recordingWriter();
    writer.fail = true;
    const appender = new BatchingAppender(writer.write, { commitWaitMs: 60_000, closeTimeoutMs: 100 });
    const waiting = finishCall(appender);
    await expect(appender.close()).rejects.toThrow(/1 event\(s\) not written/);
    await expect(waiting).resolves.toBe(false);
  });
});
