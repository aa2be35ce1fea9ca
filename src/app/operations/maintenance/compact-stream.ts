import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import { defineOperation } from "../../operation.js";

const STREAM_RULE = "must be a non-empty string of at most 512 characters, without NUL";
/** Longest wait for queued events before looking the stream up anyway (as tool history waits). */
const FLUSH_WAIT_MS = 2_000;

/**
 * `POST /maintenance/compact` `{stream_id}` (an earlier revision's route, which answered 500 when
 * the stream had no snapshot). Compaction would drop the events a snapshot of the stream already
 * summarises. The event store takes no snapshots: no state is rebuilt from a stream (every view
 * is kept current in memory and in its repository), and the events themselves are what tool
 * history, the security view and replication between replicas read. So no stream ever has a
 * snapshot, and nothing is ever removed: the route validates `stream_id` (422), looks the stream
 * up (404 `StreamNotFoundError` when no event was ever recorded in it) and answers 500
 * `SnapshotNotFoundError` saying so. Accepted events are never lost to maintenance.
 */
export const compactStream = defineOperation({
  name: "compact-stream",
  kind: "command",
  summary: "Compact an event stream up to its latest snapshot (the event store keeps no snapshots: refused).",
  permissions: ["maintenance:compact"],
  input: z.strictObject({
    stream_id: z
      .string({ error: STREAM_RULE })
      .max(512, { error: STREAM_RULE })
      .refine((id) => id.trim() !== "" && !id.includes("\u0000"), { error: STREAM_RULE }),
  }),
  async run({ eventStore }, input) {
    // An event appended a moment ago makes its stream known: wait for it, within bounds.
    await Promise.race([eventStore.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_WAIT_MS))]);
    const [first] = await eventStore.readStream(input.stream_id, { limit: 1 });
    if (first === undefined) {
      throw new GatewayError("StreamNotFoundError", `Event stream not found: ${input.stream_id}`, {
        stream_id: input.stream_id,
      });
    }
    throw new GatewayError(
      "SnapshotNotFoundError",
      `No snapshot exists for event stream '${input.stream_id}': the event store keeps every event ` +
        "and takes no snapshots, so nothing was compacted",
      { stream_id: input.stream_id },
    );
  },
});
