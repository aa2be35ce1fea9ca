import type { DomainEvent } from "../../domain/events.js";
import type { EventStore } from "../ports/event-store.js";

/** Where the events of peers go: `EventBus.deliverFromPeer`. */
export type PeerEventSink = (event: DomainEvent) => void;

/**
 * Reads at most this many events per query: a burst of a busy peer is delivered in a few queries
 * without holding one large result in memory.
 */
const PAGE_SIZE = 500;

/**
 * Follows the shared event log in commit order and hands the events other replicas produced to
 * `deliver`, once each. Positions are gap-free and assigned in commit order (see the event store
 * port), so a cursor that moves past what it read never skips an event, and an event is read once.
 * This replica's own events come back too: they are told apart by `produced_by` (the instance id,
 * unique per process) and dropped, since the bus delivered them when they were published.
 *
 * Guaranteed: peers' events are delivered in position order, each once per tailer. Not
 * guaranteed: delivery before the producer's batch commits, nor any order between a peer's event
 * and a local one (local events are delivered at publication, peers' after their commit).
 */
export class EventTailer {
  private cursor: number | null = null;
  private reading: Promise<number> | null = null;

  constructor(private readonly deps: { store: EventStore; instanceId: string; deliver: PeerEventSink }) {}

  /** The position after which events are delivered (null before `startAtHead`). */
  get position(): number | null {
    return this.cursor;
  }

  /**
   * Starts after the last committed event: what peers produced before this replica started is in
   * the store, not replayed to this replica's subscribers.
   */
  async startAtHead(): Promise<void> {
    this.cursor = await lastPosition(this.deps.store);
  }

  /**
   * Delivers every peer event committed since the last read; resolves with how many were
   * delivered. Concurrent calls share one read, so nothing is delivered twice.
   */
  catchUp(): Promise<number> {
    this.reading ??= this.readAll().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async readAll(): Promise<number> {
    if (this.cursor === null) await this.startAtHead();
    let delivered = 0;
    for (;;) {
      const page = await this.deps.store.readAll({ fromPosition: (this.cursor ?? 0) + 1, limit: PAGE_SIZE });
      for (const stored of page) {
        // Moved first: a throwing sink (the bus already isolates its listeners) never replays.
        this.cursor = stored.position;
        if (stored.event.produced_by === this.deps.instanceId) continue;
        this.deps.deliver(stored.event);
        delivered += 1;
      }
      if (page.length < PAGE_SIZE) return delivered;
    }
  }
}

/**
 * The position of the last committed event (0 when the store is empty), found with O(log n)
 * one-row reads: positions start at 1 and have no gaps, so position p exists iff p <= last.
 */
export async function lastPosition(store: EventStore): Promise<number> {
  const exists = async (position: number) =>
    (await store.readAll({ fromPosition: position, limit: 1 })).length > 0;
  if (!(await exists(1))) return 0;
  let low = 1; // exists
  let high = 2; // not known yet
  while (await exists(high)) {
    low = high;
    high *= 2;
  }
  // Invariant: low exists, high does not.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return low;
}
