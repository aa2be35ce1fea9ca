import { PostgresEventStore } from "../adapters/store/postgres/postgres-event-store.js";
import type { EventBus } from "../app/event-bus.js";
import type { Logger } from "../app/ports/logger.js";
import { EventTailer } from "../app/replication/event-tailer.js";
import type { GatewayConfig } from "../config/schema.js";
import { eventReplication } from "../control/event-replication.js";
import type { Periodic } from "../control/periodic.js";
import type { Storage } from "./open-storage.js";

/**
 * The loop that delivers peers' events to this replica's `subscribeWithPeers` listeners (the
 * WebSocket stream), when replicas share an event log: `coordination` is configured and events
 * are kept in PostgreSQL. Null otherwise: a single replica, or a store no peer can read.
 */
export async function openReplication(
  config: GatewayConfig,
  storage: Storage,
  deps: { bus: EventBus; instanceId: string; logger: Logger },
): Promise<Periodic | null> {
  if (config.coordination === undefined || !(storage.eventStore instanceof PostgresEventStore)) return null;
  const { bus, instanceId, logger } = deps;
  const tailer = new EventTailer({
    store: storage.eventStore,
    instanceId,
    deliver: (event) => bus.deliverFromPeer(event),
  });
  try {
    await tailer.startAtHead();
  } catch (error) {
    // The first read of the loop finds the head instead; the start is not refused for it.
    logger.error({ err: String(error) }, "shared event log not readable; replication starts later");
  }
  return eventReplication(tailer, logger);
}
