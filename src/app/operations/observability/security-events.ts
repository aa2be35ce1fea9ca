import { z } from "zod";
import type { DomainEvent } from "../../../domain/events.js";
import { defineOperation } from "../../operation.js";
import type { EventStore, StoredEvent } from "../../ports/event-store.js";
import { lastPosition } from "../../replication/event-tailer.js";
import { clampedInteger } from "../clamped-integer.js";
import { timeFilter } from "./query-fields.js";
import { SECURITY_EVENT_TYPES, type SecurityCategory, securityCategory } from "./security-event-kinds.js";

/** A page of events: 100 by default, at most 1,000. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;
/**
 * Positions read per step, newest first. Each step is one read of a range of the primary key with
 * a type filter, so only security events travel; most events (tool calls) are skipped in the store.
 */
const STEP = 5_000;
/**
 * Positions examined by one request at most: a log of millions of events with few security events
 * among them cannot make one request read it all. A page cut short by it says where to go on.
 */
const SCAN_BUDGET = 200_000;
/** Longest wait for queued events before reading anyway (as tool history waits). */
const FLUSH_WAIT_MS = 2_000;

const BEFORE_RULE = "must be an integer";

/**
 * `GET /observability/security` (an earlier revision's route): the security decisions of the
 * domain event store (see `security-event-kinds.ts` for which), newest first, across every replica
 * writing to the store. `since` (epoch seconds or ISO 8601) is the window's start, `limit` the page
 * size; `before` is the `next_before` of the page before: only events at lower positions. A page
 * with fewer than `limit` events and a `next_before` was cut short by the scan budget: ask again
 * with that `before`. A caller confined to a tenant sees only events carrying that tenant.
 */
export const securityEvents = defineOperation({
  name: "security-events",
  kind: "query",
  summary:
    "Security decisions from the event store (denials, refusals, pin drift, keys, approvals), newest first.",
  permissions: ["audit:read"],
  tenantAware: true,
  input: z.strictObject({
    since: timeFilter(),
    limit: clampedInteger(DEFAULT_LIMIT, 1, MAX_LIMIT),
    before: z.int({ error: BEFORE_RULE }).optional(),
  }),
  async run({ eventStore }, input, ctx) {
    // Read-your-writes when the store keeps up; an unavailable store must not hang the request.
    await Promise.race([eventStore.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_WAIT_MS))]);
    const head = await lastPosition(eventStore);
    let top = input.before === undefined ? head : Math.min(head, input.before - 1);
    const events: ReturnType<typeof present>[] = [];
    let examined = 0;
    while (top >= 1) {
      if (examined >= SCAN_BUDGET) return page(events, top + 1);
      const low = Math.max(1, top - STEP + 1);
      const stored = await eventStore.readAll({
        fromPosition: low,
        toPosition: top,
        types: SECURITY_EVENT_TYPES,
        limit: STEP,
      });
      examined += top - low + 1;
      for (const item of stored.reverse()) {
        if (input.since !== undefined && item.event.occurred_at < input.since) continue;
        if (ctx.confinedTo !== undefined && tenantOf(item.event) !== ctx.confinedTo) continue;
        const category = securityCategory(item.event);
        if (category === null) continue;
        events.push(present(item, category));
        if (events.length === input.limit) return page(events, item.position);
      }
      if (input.since !== undefined && (await olderThan(eventStore, low, input.since))) break;
      top = low - 1;
    }
    return page(events, null);
  },
});

function page(events: ReturnType<typeof present>[], next_before: number | null) {
  return { events, count: events.length, next_before };
}

/** An event as the view lists it: its type and category, its fields, and its position. */
function present({ event, position }: StoredEvent, category: SecurityCategory) {
  const { type, ...fields } = event;
  return { event_type: type, category, ...fields, position };
}

function tenantOf(event: DomainEvent): unknown {
  return (event as { tenant_id?: unknown }).tenant_id;
}

/**
 * Whether the event at `position` happened before `since`: positions follow commit order, which
 * follows time closely, so nothing below it is read (an event committed late by a slow replica can
 * be missed at the window's edge).
 */
async function olderThan(store: EventStore, position: number, since: number): Promise<boolean> {
  const [first] = await store.readAll({ fromPosition: position, limit: 1 });
  return first === undefined || first.event.occurred_at < since;
}
