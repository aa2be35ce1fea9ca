import type { DomainEvent } from "../domain/events.js";
import type { EventBus } from "./event-bus.js";
import type { EventStore } from "./ports/event-store.js";
import type { Logger } from "./ports/logger.js";

/** The stream of every event about one server; tool history reads it. */
export const serverStream = (id: string) => `mcp_server:${id}`;
/** Events about the gateway as a whole (configuration, authentication, ...). */
export const GATEWAY_STREAM = "gateway";

/** The stream an event belongs to: its server's, or the gateway's. */
export function streamOf(event: DomainEvent): string {
  const id = (event as { mcp_server_id?: unknown }).mcp_server_id;
  return typeof id === "string" ? serverStream(id) : GATEWAY_STREAM;
}

/**
 * Appends every published event to the event store. The append only queues (the store commits in
 * batches), so recording adds no I/O to the path that published the event.
 */
export function recordEvents(bus: EventBus, store: EventStore, logger: Logger): () => void {
  return bus.subscribe((event) => {
    try {
      store.append(streamOf(event), [event]);
    } catch (error) {
      // A closed store or an event no store can hold: the event is still delivered to the others.
      logger.error({ event_type: event.type, err: String(error) }, "event not recorded");
    }
  });
}
