import { z } from "zod";
import { serverStream } from "../event-recorder.js";
import { defineOperation } from "../operation.js";
import { clampedInteger } from "./clamped-integer.js";

/** Spec 1 §4: `limit` default 100, clamped to 1-500; `from_position` default 0, inclusive. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;
/** Longest wait for queued events before reading history anyway. */
const FLUSH_WAIT_MS = 2_000;
const HISTORY_TYPES = ["ToolInvocationCompleted", "ToolInvocationFailed"] as const;

export const toolHistory = defineOperation({
  name: "tool-history",
  kind: "query",
  summary:
    "Tool invocations of one server (or of one group: the calls routed through it) from the event " +
    "store, oldest first, paged by stream version.",
  permissions: ["mcp_servers:read"],
  tenantAware: true,
  input: z.strictObject({
    mcp_server: z.string().min(1),
    limit: clampedInteger(DEFAULT_LIMIT, 1, MAX_LIMIT),
    from_position: clampedInteger(0, 0, Number.MAX_SAFE_INTEGER),
  }),
  async run({ fleet, groups, eventStore }, input, ctx) {
    // A call routed through a group is recorded in the group's stream (naming the member that
    // served it): the group's id answers those, as a server's id answers its own calls.
    const id = groups.has(input.mcp_server) ? input.mcp_server : fleet.require(input.mcp_server).id;
    // Read-your-writes when the store keeps up; an unavailable store must not hang the request.
    await Promise.race([eventStore.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_WAIT_MS))]);
    const stored = await eventStore.readStream(serverStream(id), {
      fromVersion: input.from_position,
      limit: input.limit,
      types: HISTORY_TYPES,
    });
    // A caller confined to a tenant (a tenant-scoped grant) sees that tenant's invocations only.
    const visible =
      ctx.confinedTo === undefined
        ? stored
        : stored.filter(({ event }) => (event as { tenant_id?: unknown }).tenant_id === ctx.confinedTo);
    const history = visible.map(({ event, stream_version, position }) => {
      const { type, ...rest } = event;
      return { event_type: type, ...rest, version: stream_version, position };
    });
    return { mcp_server_id: id, history, total: history.length };
  },
});
