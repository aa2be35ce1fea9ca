import { describe, expect, it } from "vitest";
import { type AppendGroup, BatchingAppender } from "../../../src/adapters/store/batching-appender.js";
import { CommitBeforeAnswer } from "../../../src/app/commit-before-answer.js";
import type { EventStore } from "../../../src/app/ports/event-store.js";
import { GatewayError } from "../../../src/domain/errors.js";
import type { DomainEvent } from "../../../src/domain/events.js";

let n = 0;
function event(): DomainEvent {
  n += 1;
  return {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: `call-${n}`,
    duration_ms: 1,
    result_size_bytes: 2,
    event_id: `e-${n}`,
    occurred_at: 1,
    produced_by: "test",
  } as DomainEvent;
}

/** An event store whose commits are the real group commit, onto a database the test can take away. */
function storeWithSwitch(commitWaitMs: number) {
  const committed: string[] = [];
  const db = { away: false };
  const appender = new BatchingAppender(
    async (batch: readonly AppendGroup[]) => {
      if (db.away) throw new Error("connection refused");
      for (const group of batch) for (const e of group.events) committed.push(e.event_id);
    },
    { commitWaitMs },
  );
  const store: EventStore = {
    durable: true,
    append: (stream, events) => appender.append(stream, events),
    flush: () => appender.flush(),
    appendMark: () => appender.appendMark(),
    whenCommitted: (mark) => appender.whenCommitted(mark),
    get commitFailure() {
      return appender.commitFailure;
    },
    retryNow: () => appender.retryNow(),
    readStream: async () => [],
    readAll: async () => [],
    close: () => appender.close(),
  };
  return { store, committed, db, appender };
}

/** Work that records one event, as a tool call does when it ends, and answers `value`. */
function callRecording(store: EventStore, id: { value?: string }) {
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const e = event();
    id.value = e.event_id;
    store.append("mcp_server:math", [e]);
    return "answer";
  };
}

describe("CommitBeforeAnswer", () => {
  it("answers only once the events the work appended are committed", async () => {
    const { store, committed } = storeWithSwitch(5_000);
    const gate = new CommitBeforeAnswer(store);
    const id: { value?: string } = {};
    const answer = await gate.answer(callRecording(store, id));
    expect(answer).toBe("answer");
    expect(committed).toContain(id.value);
  });

  it("answers a failure once its events are committed, with the work's own error", async () => {
    const { store, committed } = storeWithSwitch(5_000);
    const gate = new CommitBeforeAnswer(store);
    const failing = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      store.append("mcp_server:math", [{ ...event(), type: "ToolInvocationFailed" } as DomainEvent]);
      throw new GatewayError("ToolInvocationError", "upstream failed");
    };
    await expect(gate.answer(failing)).rejects.toMatchObject({ type: "ToolInvocationError" });
    expect(committed).toHaveLength(1);
  });

  it("answers StoreUnavailableError once the commit wait ran out, and the event is recorded once the store is back", async () => {
    const { store, committed, db, appender } = storeWithSwitch(100);
    const gate = new CommitBeforeAnswer(store);
    db.away = true;
    const id: { value?: string } = {};
    const refused = await gate.answer(callRecording(store, id)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({
      type: "StoreUnavailableError",
      details: { store: "event store", retry_after: expect.any(Number) },
    });
    expect((refused as GatewayError).details?.retry_after).toBeGreaterThanOrEqual(1);
    expect(committed).toEqual([]);
    db.away = false;
    await appender.flush();
    expect(committed).toEqual([id.value]);
  });

  it("refuses before the work starts while the store is known to be failing", async () => {
    const { store, db, appender } = storeWithSwitch(50);
    const gate = new CommitBeforeAnswer(store);
    db.away = true;
    await expect(gate.answer(callRecording(store, {}))).rejects.toMatchObject({
      type: "StoreUnavailableError",
    });
    let ran = false;
    await expect(
      gate.answer(async () => {
        ran = true;
        return "ran";
      }),
    ).rejects.toMatchObject({ type: "StoreUnavailableError", details: { store: "event store" } });
    expect(ran).toBe(false);
    // Back: the queued event commits at its next retry, and work runs again.
    db.away = false;
    await appender.flush();
    await expect(gate.answer(async () => "ran")).resolves.toBe("ran");
  });
});
