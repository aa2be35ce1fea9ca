import type { Server } from "@modelcontextprotocol/server";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { FrontDoorHubServices } from "../../../app/edge-services.js";
import type { FrontDoorRelay } from "../../../app/front-door/relay.js";
import type { UpstreamPeer } from "../../../app/ports/upstream.js";

/** One client session of the front door. */
export interface FrontDoorSession {
  /** The transport session id (HTTP) or `stdio`. */
  readonly key: string;
  readonly server: Server;
  /** Resource URIs the client subscribed to. */
  readonly subscriptions: Set<string>;
}

/** What a downstream request handler can send along its own request (its SSE stream on HTTP). */
export interface RequestChannel {
  /** The session the request came on; none for a stateless `tools/call` served without a server. */
  readonly session?: FrontDoorSession;
  /**
   * True when the channel itself refuses what its client did not declare (a stateless client's,
   * whose capabilities come with each request); otherwise the session's `initialize` decides.
   */
  readonly refusesUndeclared?: boolean;
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  sendRequest(
    request: { method: string; params?: Record<string, unknown> },
    options: { signal: AbortSignal; key?: string | undefined },
  ): Promise<Record<string, unknown>>;
}

const AnyResult = z.looseObject({});

/**
 * The sessions of the front door and the way back from upstreams to them.
 *
 * An upstream's own requests (sampling, elicitation, roots) and notifications (logging, progress
 * of a task) carry nothing that names the client request they belong to, so they go to the client
 * whose relayed request to that upstream started last and is still running, along that request
 * (its SSE stream on HTTP); with none running, requests go to the session that connected last and
 * notifications to every session. Resource updates go to the sessions subscribed to the URI, task
 * status to the session that created the task, list changes to every session.
 */
export class FrontDoorHub {
  private readonly sessions = new Map<string, FrontDoorSession>();
  private readonly inFlight = new Map<string, RequestChannel[]>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly services: FrontDoorHubServices,
    private readonly relay: FrontDoorRelay,
  ) {
    this.unsubscribe.push(
      relay.projection.onChange(() => this.broadcast("notifications/tools/list_changed")),
      services.bus.subscribeWithPeers((event) => {
        const own = event.produced_by === services.instance.instance_id;
        if (event.type === "McpServerStarted" && own) this.attachPeer(event.mcp_server_id as string);
        // Listings are filtered per caller by runtime policies: every session is told to list again.
        // A peer's change reached the shared store: read it first (the read the replication asked
        // for), so the new listing shows it.
        if (event.type === "ToolPolicyChanged") {
          const ready = own ? undefined : services.governance?.readAfterPeerEvent(event);
          void Promise.resolve(ready).then(() => this.announcePolicyChange());
        }
      }),
    );
    for (const id of services.fleet.connectedIds()) this.attachPeer(id);
  }

  private announcePolicyChange(): void {
    this.broadcast("notifications/tools/list_changed");
    this.broadcast("notifications/prompts/list_changed");
    this.broadcast("notifications/resources/list_changed");
  }

  add(session: FrontDoorSession): void {
    this.sessions.set(session.key, session);
  }

  remove(key: string): void {
    this.sessions.delete(key);
    this.relay.forgetOwner(key);
  }

  /** Records a relayed request as running against `serverId`; returns what ends it. */
  enter(serverId: string, channel: RequestChannel): () => void {
    const running = this.inFlight.get(serverId) ?? [];
    running.push(channel);
    this.inFlight.set(serverId, running);
    return () => {
      const index = running.indexOf(channel);
      if (index !== -1) running.splice(index, 1);
      if (running.length === 0 && this.inFlight.get(serverId) === running) this.inFlight.delete(serverId);
    };
  }

  /** Every running upstream hears client notifications such as `notifications/roots/list_changed`. */
  forwardToUpstreams(method: string, params: Record<string, unknown> | undefined): void {
    this.services.fleet.notifyUpstreams(method, params);
  }

  close(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
    for (const id of this.services.fleet.connectedIds()) this.services.fleet.setPeer(id, null);
    this.sessions.clear();
  }

  private attachPeer(serverId: string): void {
    this.services.fleet.setPeer(serverId, this.peerFor(serverId));
  }

  private peerFor(serverId: string): UpstreamPeer {
    return {
      notification: (method, params) => this.fromUpstream(serverId, method, params),
      request: async (method, params, signal, key) => {
        const channel = this.latest(serverId);
        try {
          if (channel) {
            if (!channel.refusesUndeclared && channel.session)
              refuseUndeclared(channel.session.server.getClientCapabilities(), method);
            return await channel.sendRequest({ method, ...(params && { params }) }, { signal, key });
          }
          const session = [...this.sessions.values()].at(-1);
          if (!session)
            throw new ProtocolError(
              ProtocolErrorCode.MethodNotFound,
              `No client connected to answer ${method}`,
            );
          refuseUndeclared(session.server.getClientCapabilities(), method);
          return await session.server.request({ method, ...(params && { params }) } as never, AnyResult, {
            signal,
          });
        } catch (error) {
          if (error instanceof ProtocolError) throw error;
          // The SDK refuses a request the client did not declare the capability for.
          throw new ProtocolError(
            ProtocolErrorCode.MethodNotFound,
            error instanceof Error ? error.message : String(error),
          );
        }
      },
    };
  }

  private fromUpstream(serverId: string, method: string, params: Record<string, unknown> | undefined): void {
    const notification = { method, ...(params && { params }) };
    switch (method) {
      case "notifications/tools/list_changed": {
        // Re-listing refreshes the projection, which tells every session if the listing changed.
        this.services.fleet.relist(serverId);
        return;
      }
      case "notifications/resources/list_changed":
      case "notifications/prompts/list_changed":
        this.broadcast(method);
        return;
      case "notifications/resources/updated": {
        const uri = params?.uri;
        for (const session of this.sessions.values()) {
          if (typeof uri === "string" && session.subscriptions.has(uri)) this.notify(session, notification);
        }
        return;
      }
      case "notifications/tasks/status": {
        const owner = this.relay.taskOwner(String(params?.taskId));
        const session = owner === undefined ? undefined : this.sessions.get(owner);
        if (session) this.notify(session, notification);
        return;
      }
      default: {
        const channel = this.latest(serverId);
        if (channel) {
          void channel.sendNotification(notification).catch(() => undefined);
          return;
        }
        for (const session of this.sessions.values()) this.notify(session, notification);
      }
    }
  }

  private latest(serverId: string): RequestChannel | undefined {
    return this.inFlight.get(serverId)?.at(-1);
  }

  private broadcast(method: string): void {
    for (const session of this.sessions.values()) this.notify(session, { method });
  }

  private notify(
    session: FrontDoorSession,
    notification: { method: string; params?: Record<string, unknown> },
  ) {
    // Nothing reaches a client before its `initialize` (the stdio session exists from the start).
    if (session.server.getClientVersion() === undefined) return;
    void session.server.notification(notification as never).catch(() => undefined);
  }
}

/** The client capability each request an upstream may make of the client needs. */
const NEEDED_CAPABILITY: Readonly<Record<string, "sampling" | "elicitation" | "roots">> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/**
 * Refuses, as the client would (-32601), a request its `initialize` did not declare the capability
 * for: the client gets no request it said it cannot answer, the upstream gets the error.
 */
export function refuseUndeclared(
  declared: Readonly<Record<string, unknown>> | undefined,
  method: string,
): void {
  const capability = NEEDED_CAPABILITY[method];
  if (capability === undefined || declared?.[capability] !== undefined) return;
  throw new ProtocolError(
    ProtocolErrorCode.MethodNotFound,
    `The client does not support ${method} (no ${capability} capability)`,
  );
}
