import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { Governance } from "../app/governance/governance.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import { EventTailer } from "../app/replication/event-tailer.js";
import { mirrorPeerRegistrations } from "../app/replication/peer-fleet.js";
import type { GatewayConfig } from "../config/schema.js";
import { eventReplication } from "../control/event-replication.js";
import type { Periodic } from "../control/periodic.js";
import type { Storage } from "./open-storage.js";

/**
 * The loop that delivers peers' events to this replica's `subscribeWithPeers` listeners (the
 * WebSocket stream) and applies their run-time registrations to this replica's fleet, when
 * replicas share an event log: `coordination` is configured and events are kept in PostgreSQL.
 * Null otherwise: a single replica, or a store no peer can read. `lagSeconds` is the time since the
 * loop last read the log up to its head (`airlock_replication_lag_seconds`).
 */
export async function openReplication(
  config: GatewayConfig,
  storage: Storage,
  deps: {
    bus: EventBus;
    fleet: Fleet;
    groups: GroupService;
    governance: Governance | undefined;
    instanceId: string;
    logger: Logger;
    clock: Clock;
  },
): Promise<{ loop: Periodic; lagSeconds: () => number } | null> {
  if (config.coordination === undefined) return null;
  // Loaded here rather than at start: only coordinated replicas (on PostgreSQL) get this far.
  const { PostgresEventStore } = await import("../adapters/store/postgres/postgres-event-store.js");
  if (!(storage.eventStore instanceof PostgresEventStore)) return null;
  const { bus, fleet, governance, instanceId, logger } = deps;
  // A stored policy, a withdrawal or restore, an agent policy push or a suspension announced by a
  // peer is read from the shared store at once, not only at the next age-based re-read. (A failed
  // read is logged by the reader, which keeps the last copy.)
  bus.subscribePeers((event) => {
    void governance?.readAfterPeerEvent(event);
  });
  // Servers peers register at run time join this replica's fleet (the subscription lives as long as the bus).
  mirrorPeerRegistrations({
    bus,
    fleet,
    groups: deps.groups,
    serverConfigs: storage.repositories.serverConfigs,
    groupConfigs: storage.repositories.groupConfigs,
    logger,
  });
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
  let caughtUpAt = deps.clock.monotonic();
  const loop = eventReplication(tailer, logger, {
    onCaughtUp: () => {
      caughtUpAt = deps.clock.monotonic();
    },
  });
  return { loop, lagSeconds: () => (deps.clock.monotonic() - caughtUpAt) / 1000 };
}
