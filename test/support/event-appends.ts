import type { AppendGroup } from "../../src/adapters/store/batching-appender.js";
import type { DomainEvent } from "../../src/domain/events.js";

let appended = 0;

/** A tool call's completion, with an event_id and a call_id no other event of the process has. */
export function completedEvent(): DomainEvent {
  appended += 1;
  return {
    type: "ToolInvocationCompleted",
    mcp_server_id: "math",
    tool_name: "add",
    call_id: `call-${appended}`,
    duration_ms: 1,
    result_size_bytes: 2,
    event_id: `e-${appended}`,
    occurred_at: 1,
    produced_by: "test",
  } as DomainEvent;
}

/**
 * A batch writer for a `BatchingAppender` that records the event ids of each batch it committed;
 * `fail` makes attempts throw (a database away), `hold` keeps a write open until it settles.
 */
export function recordingWriter() {
  const batches: string[][] = [];
  const state = {
    fail: false,
    hold: null as Promise<void> | null,
    batches,
    write: async (batch: readonly AppendGroup[]) => {
      if (state.hold) await state.hold;
      if (state.fail) throw new Error("database away");
      batches.push(batch.flatMap((group) => group.events.map((e) => e.event_id)));
    },
  };
  return state;
}
