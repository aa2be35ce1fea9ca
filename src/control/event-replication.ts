import type { Logger } from "../app/ports/logger.js";
import type { EventTailer } from "../app/replication/event-tailer.js";
import { Periodic } from "./periodic.js";

/**
 * How often a replica reads the shared event log for its peers' events. A read is one index range
 * scan on the position key, which an idle log answers with no rows; 200 ms keeps a peer's event
 * on this replica's WebSocket stream well under a second after its commit, at five small queries
 * per second per replica.
 */
export const REPLICATION_POLL_INTERVAL_MS = 200;

/** The loop that delivers peers' events to this replica's subscribers (see `EventTailer`). */
export function eventReplication(
  tailer: EventTailer,
  logger: Logger,
  options: { intervalMs?: number; onCaughtUp?: () => void } = {},
): Periodic {
  return new Periodic(
    options.intervalMs ?? REPLICATION_POLL_INTERVAL_MS,
    // `catchUp` reads until a short page: once it resolves, this replica has read up to the head.
    () => tailer.catchUp().then(() => options.onCaughtUp?.()),
    // The cursor stays where it was: the next run reads the same events again, none is lost.
    (error) => logger.error({ err: String(error) }, "shared event log not readable; retrying"),
  );
}
