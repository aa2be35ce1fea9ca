import type { EventBus } from "../../../app/event-bus.js";
import type { Logger } from "../../../app/ports/logger.js";
import type { DomainEvent } from "../../../domain/events.js";
import {
  type ConnectionStats,
  EventConnection,
  type StreamIdentity,
  type StreamTypes,
} from "./event-connection.js";
import { eventFrame } from "./event-frame.js";
import type { StreamSocket } from "./socket.js";
import type { StreamLimits, StreamTimings } from "./stream-settings.js";

/**
 * The open `/api/ws/events` connections and their single subscription to the event bus. The bus
 * listener is attached while at least one connection is open, serialises each event once, and
 * only enqueues: writing happens later, per connection (see `EventConnection`).
 */
export class EventStreamHub {
  private readonly connections = new Set<EventConnection>();
  private unsubscribe: (() => void) | null = null;
  private nextId = 1;

  constructor(
    private readonly bus: EventBus,
    private readonly settings: { timings: StreamTimings; limits: StreamLimits },
    private readonly logger: Logger,
  ) {}

  /** Number of open connections. */
  get size(): number {
    return this.connections.size;
  }

  /** Takes over an accepted socket and starts streaming to it the events of `types` (null: all). */
  open(socket: StreamSocket, identity: StreamIdentity, types: StreamTypes = null): EventConnection {
    const hooks = { logger: this.logger, onFinished: (finished: EventConnection) => this.forget(finished) };
    const connection = new EventConnection(this.nextId++, socket, identity, this.settings, hooks, types);
    this.connections.add(connection);
    // Peers' events too: a client of any replica sees the events of every replica.
    this.unsubscribe ??= this.bus.subscribeWithPeers((event) => this.deliver(event));
    connection.start();
    this.logger.debug(
      { connection_id: connection.id, principal_id: identity.principal.id },
      "event stream connection opened",
    );
    return connection;
  }

  stats(): ConnectionStats[] {
    return [...this.connections].map((connection) => connection.stats());
  }

  private deliver(event: DomainEvent): void {
    let frame: string | undefined;
    const frameOnce = () => {
      frame ??= eventFrame(event);
      return frame;
    };
    for (const connection of this.connections) connection.offer(event, frameOnce);
  }

  private forget(connection: EventConnection): void {
    this.connections.delete(connection);
    this.logger.debug({ connection_id: connection.id }, "event stream connection closed");
    if (this.connections.size === 0 && this.unsubscribe) {
      this.unsubscribe();
      this.unsubscribe = null;
    }
  }
}
