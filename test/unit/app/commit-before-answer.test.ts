import { describe, expect, it } from "vitest";
import type { AppendGroup } from "../../../src/adapters/store/batching-appender.js";
import { GroupCommitEventStore } from "../../../src/adapters/store/group-commit-event-store.js";
import { CommitBeforeAnswer } from "../../../src/app/commit-before-answer.js";
import type { EventStore } from "../../../src/app/ports/event-store.js";
import { GatewayError } from "../../../src/domain/errors.js";
import type { DomainEvent } from "../../../src/domain/events.js";
import { completedEvent, recordingWriter } from "../../support/event-appends.js";

/** An event store whose commits are the real group commit, onto a recording writer. */
class RecordingEventStore extends GroupCommitEventStore {
  readonly durable = true;

  constructor(
    private readonly writer: ReturnType<typeof recordingWriter>,
    commitWaitMs: number,
  ) {
    super({ commitWaitMs });
  }

  protected writeBatch(batch: readonly AppendGroup[]): Promise<void> {
    return this.writer.write(batch);
  }

  async readStream() {
    return [];
  }

  async readAll() {
    return [];
  }
}

/**
 * An event store onto a database the test can take away (`db.fail`); `db.batches` holds what was
 * committed.
 */
function storeWithSwitch(commitWaitMs: number) {
  const db = recordingWriter();
  return { store: new RecordingEventStore(db, commitWaitMs), db };
}

/** Work that records one event, as a tool call does when it ends, and answers `value`. */
function callRecording(store: EventStore, id: { value?: string }) {
  return async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const e = completedEvent();
    id.value = e.event_id;
    store.append("mcp_server:math", [e]);
    return "answer";
  };
}

describe("CommitBeforeAnswer", () => {
  it("answers only once the events the work appended are committed", async () => {
    const { store, db } = storeWithSwitch(5_000);
    const gate = new CommitBeforeAnswer(store);
    const id: { value?: string } = {};
    const answer = await gate.answer(callRecording(store, id));
    expect(answer).toBe("answer");
    expect(db.batches.flat()).toContain(id.value);
  });

  it("answers a failure once its events are committed, with the work's own error", async () => {
    const { store, db } = storeWithSwitch(5_000);
    const gate = new CommitBeforeAnswer(store);
    const failing = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      store.append("mcp_server:math", [{ ...completedEvent(), type: "ToolInvocationFailed" } as DomainEvent]);
      throw new GatewayError("ToolInvocationError", "upstream failed");
    };
    await expect(gate.answer(failing)).rejects.toMatchObject({ type: "ToolInvocationError" });
    expect(db.batches.flat()).toHaveLength(1);
  });

  it("answers StoreUnavailableError once the commit wait ran out, and the event is recorded once the store is back", async () => {
    const { store, db } = storeWithSwitch(100);
    const gate = new CommitBeforeAnswer(store);
    db.fail = true;
    const id: { value?: string } = {};
    const refused = await gate.answer(callRecording(store, id)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({
      type: "StoreUnavailableError",
      details: { store: "event store", retry_after: expect.any(Number) },
    });
    expect((refused as GatewayError).details?.retry_after).toBeGreaterThanOrEqual(1);
    expect(db.batches.flat()).toEqual([]);
    db.fail = false;
    await store.flush();
    expect(db.batches.flat()).toEqual([id.value]);
  });

  it("refuses before the work starts while the store is known to be failing", async () => {
    const { store, db } = storeWithSwitch(50);
    const gate = new CommitBeforeAnswer(store);
    db.fail = true;
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
    db.fail = false;
    await store.flush();
    await expect(gate.answer(async () => "ran")).resolves.toBe("ran");
  });
});
