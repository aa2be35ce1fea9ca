import type { DomainEvent, DomainEventPayload } from "../domain/events.js";
import type { Clock } from "./ports/clock.js";
import type { IdGenerator } from "./ports/id-generator.js";
import type { Logger } from "./ports/logger.js";

export type EventListener = (event: DomainEvent) => void;

/**
 * In-process delivery of domain events to subscribers (metrics, audit, WebSocket, store).
 * Adds the envelope (`event_id`, `occurred_at`, `produced_by`). Delivery is synchronous and in
 * publication order; a throwing subscriber is logged and never breaks the publisher or its peers.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();
  /** Listeners of peers' events too (`subscribeWithPeers`): the WebSocket stream. */
  private readonly peerListeners = new Set<EventListener>();
  /** Listeners of peers' events alone (`subscribePeers`): the mirror of peers' registrations. */
  private readonly peerOnlyListeners = new Set<EventListener>();

  constructor(
    private readonly deps: { clock: Clock; ids: IdGenerator; logger: Logger; instanceId: string },
  ) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Like `subscribe`, and also receives the events other replicas produced, as `deliverFromPeer`
   * hands them over (in the shared store's commit order). Recorders, audit and the read models of
   * this replica's own fleet use `subscribe`, so a peer's event is never recorded twice.
   */
  subscribeWithPeers(listener: EventListener): () => void {
    this.listeners.add(listener);
    this.peerListeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      this.peerListeners.delete(listener);
    };
  }

  /** Receives only the events other replicas produced (never this replica's own). */
  subscribePeers(listener: EventListener): () => void {
    this.peerOnlyListeners.add(listener);
    return () => this.peerOnlyListeners.delete(listener);
  }

  /**
   * Delivers an event another replica produced and recorded (its envelope kept as stored) to the
   * `subscribeWithPeers` and `subscribePeers` listeners only. Synchronous, like `publish`.
   */
  deliverFromPeer(event: DomainEvent): void {
    for (const listener of this.peerListeners) this.notify(listener, event);
    for (const listener of this.peerOnlyListeners) this.notify(listener, event);
  }

  publish(payloads: readonly DomainEventPayload[]): DomainEvent[] {
    const published: DomainEvent[] = [];
    for (const payload of payloads) {
      const event: DomainEvent = {
        ...payload,
        event_id: this.deps.ids.timeOrderedUuid(),
        occurred_at: this.deps.clock.now() / 1000,
        produced_by: this.deps.instanceId,
      };
      published.push(event);
      for (const listener of this.listeners) this.notify(listener, event);
    }
    return published;
  }

  private notify(listener: EventListener, event: DomainEvent): void {
    try {
      listener(event);
    } catch (error) {
      this.deps.logger.error({ event_type: event.type, err: String(error) }, "event subscriber failed");
    }
  }
}
