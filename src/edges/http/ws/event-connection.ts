import { performance } from "node:perf_hooks";
import type { Principal } from "../../../app/context.js";
import type { Logger } from "../../../app/ports/logger.js";
import type { DomainEvent } from "../../../domain/events.js";
import { BoundedQueue } from "./bounded-queue.js";
import { parseClientFrame, type StreamFilter } from "./client-frames.js";
import { eventServerId, eventTenantId, matchesFilter, visibleTo } from "./event-frame.js";
import { CLOSE_POLICY_VIOLATION, closeReason, SOCKET_OPEN, type StreamSocket } from "./socket.js";
import type { StreamLimits, StreamTimings } from "./stream-settings.js";

/** Who is on the other end, as the handshake established it. */
export interface StreamIdentity {
  principal: Principal;
  authenticated: boolean;
  /** Tenant whose events alone the connection may see; null sees every event. */
  tenantScope: string | null;
}

/** The event types a connection's path carries: null for every type (`/api/ws/events`). */
export type StreamTypes = ReadonlySet<string> | null;

/** What one connection has done so far, for operators and tests. */
export interface ConnectionStats {
  id: number;
  principal_id: string;
  tenant_scope: string | null;
  /** False while the connection waits in its subscribe window. */
  streaming: boolean;
  filter: StreamFilter;
  /** Event frames waiting to be written. */
  queued: number;
  /** Event frames handed to the socket. */
  sent: number;
  /** Event frames dropped because the queue was full. */
  dropped: number;
}

interface QueuedEvent {
  eventType: string;
  serverId: string | undefined;
  frame: string;
}

/** Frames written per turn of the event loop, so one busy connection does not starve the others. */
const FLUSH_BATCH = 256;
/** Re-check interval when the socket reports buffered bytes but no write is pending to wake us. */
const DRAIN_POLL_MS = 20;

/**
 * One `/api/ws/events` connection: filter, bounded queue, asynchronous writer and keep-alive.
 * `offer` is called on the event bus's synchronous path and never blocks: it filters, enqueues
 * (dropping the oldest frame when full) and schedules a write on a later turn of the event loop.
 */
export class EventConnection {
  private readonly queue: BoundedQueue<QueuedEvent>;
  private readonly replies: string[] = [];
  private filter: StreamFilter = { event_types: [], mcp_server_ids: [] };
  private streaming = false;
  private closed = false;
  private finished = false;
  private flushScheduled = false;
  private waitingForDrain = false;
  private writesStarted = 0;
  private writesDone = 0;
  private sent = 0;
  private dropped = 0;
  private droppedSinceNotice = 0;
  private lastFrameAt = performance.now();
  private awaitingPong = false;
  private windowTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private terminateTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: number,
    private readonly socket: StreamSocket,
    readonly identity: StreamIdentity,
    private readonly settings: { timings: StreamTimings; limits: StreamLimits },
    private readonly hooks: { logger: Logger; onFinished(connection: EventConnection): void },
    private readonly types: StreamTypes = null,
  ) {
    this.queue = new BoundedQueue(settings.limits.queueCapacity);
  }

  /** Attaches the socket listeners and starts the subscribe window and the idle clock. */
  start(): void {
    this.socket.on("message", (data, isBinary) => this.receive(data, isBinary));
    this.socket.on("close", () => this.finish());
    this.windowTimer = setTimeout(() => this.startStreaming(), this.settings.timings.subscribeWindowMs);
    this.armIdle(this.settings.timings.idleMs);
  }

  /** Takes one published event; `frame` serialises it once for every connection. */
  offer(event: DomainEvent, frame: () => string): void {
    if (this.closed || (this.types !== null && !this.types.has(event.type))) return;
    if (!visibleTo(this.identity.tenantScope, eventTenantId(event))) return;
    const serverId = eventServerId(event);
    // Before the first subscribe the filter is unknown: hold everything, filter when it arrives.
    if (this.streaming && !matchesFilter(this.filter, event.type, serverId)) return;
    if (this.queue.push({ eventType: event.type, serverId, frame: frame() })) {
      if (this.dropped === 0) {
        this.hooks.logger.warn(
          { connection_id: this.id, principal_id: this.identity.principal.id },
          "event stream client is not keeping up; dropping its oldest frames",
        );
      }
      this.dropped++;
      this.droppedSinceNotice++;
    }
    if (this.streaming) this.scheduleFlush();
  }

  stats(): ConnectionStats {
    return {
      id: this.id,
      principal_id: this.identity.principal.id,
      tenant_scope: this.identity.tenantScope,
      streaming: this.streaming,
      filter: { event_types: [...this.filter.event_types], mcp_server_ids: [...this.filter.mcp_server_ids] },
      queued: this.queue.length,
      sent: this.sent,
      dropped: this.dropped,
    };
  }

  /** Sends a close frame, and destroys the socket if the peer does not complete the close in time. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    try {
      this.socket.close(code, closeReason(reason));
    } catch (error) {
      this.hooks.logger.debug({ connection_id: this.id, err: String(error) }, "closing the socket failed");
    }
    this.terminateTimer = setTimeout(() => this.socket.terminate(), this.settings.timings.closeGraceMs);
    this.terminateTimer.unref();
  }

  private finish(): void {
    this.closed = true;
    this.clearTimers();
    clearTimeout(this.terminateTimer);
    if (this.finished) return;
    this.finished = true;
    this.hooks.onFinished(this);
  }

  private receive(data: unknown, isBinary: boolean): void {
    if (this.closed) return;
    this.lastFrameAt = performance.now();
    if (isBinary) {
      this.reply({ type: "error", error: "Binary frames are not supported; send JSON text frames" });
      return;
    }
    const parsed = parseClientFrame(textOf(data));
    if (!parsed.ok) {
      this.reply({ type: "error", error: parsed.error });
      return;
    }
    const frame = parsed.frame;
    switch (frame.type) {
      case "subscribe": {
        this.filter = { event_types: frame.event_types, mcp_server_ids: frame.mcp_server_ids };
        // The new filter applies to every frame not yet written, so what follows the reply matches it.
        this.queue.retain((item) => matchesFilter(this.filter, item.eventType, item.serverId));
        this.reply({ type: "subscribed", ...this.filter });
        this.startStreaming();
        break;
      }
      case "pong":
        if (this.awaitingPong) {
          this.awaitingPong = false;
          clearTimeout(this.pongTimer);
          this.armIdle(this.settings.timings.idleMs);
        }
        break;
      case "ping":
        this.reply({ type: "pong" });
        break;
    }
  }

  private startStreaming(): void {
    clearTimeout(this.windowTimer);
    if (this.streaming || this.closed) return;
    this.streaming = true;
    this.scheduleFlush();
  }

  private reply(frame: Record<string, unknown>): void {
    if (this.replies.length >= this.settings.limits.maxPendingReplies) {
      this.close(CLOSE_POLICY_VIOLATION, "Too many frames sent without reading the replies");
      return;
    }
    this.replies.push(JSON.stringify(frame));
    this.scheduleFlush();
  }

  /** Keep-alive: the idle clock runs from the last frame received, re-armed lazily when it fires. */
  private armIdle(delayMs: number): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onIdleTimer(), Math.max(0, delayMs));
  }

  private onIdleTimer(): void {
    if (this.closed) return;
    const { idleMs, pongTimeoutMs } = this.settings.timings;
    const silentFor = performance.now() - this.lastFrameAt;
    if (silentFor < idleMs) {
      this.armIdle(idleMs - silentFor);
      return;
    }
    this.awaitingPong = true;
    this.reply({ type: "ping" });
    this.pongTimer = setTimeout(
      () => this.close(CLOSE_POLICY_VIOLATION, "Keep-alive timeout: no pong received"),
      pongTimeoutMs,
    );
  }

  private clearTimers(): void {
    clearTimeout(this.windowTimer);
    clearTimeout(this.idleTimer);
    clearTimeout(this.pongTimer);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.closed) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.waitingForDrain || this.socket.readyState !== SOCKET_OPEN) return;
    for (let budget = FLUSH_BATCH; budget > 0; budget--) {
      if (this.socket.bufferedAmount >= this.settings.limits.highWaterMarkBytes) {
        this.waitForDrain();
        return;
      }
      const data = this.nextFrame();
      if (data === undefined) return;
      this.writesStarted++;
      this.socket.send(data, this.onWritten);
    }
    this.scheduleFlush();
  }

  /** Replies first, then a drop notice where frames went missing, then events once streaming. */
  private nextFrame(): string | undefined {
    const reply = this.replies.shift();
    if (reply !== undefined) return reply;
    if (!this.streaming) return undefined;
    if (this.droppedSinceNotice > 0) {
      const count = this.droppedSinceNotice;
      this.droppedSinceNotice = 0;
      return JSON.stringify({ type: "dropped", count, total: this.dropped });
    }
    const next = this.queue.shift();
    if (next === undefined) return undefined;
    this.sent++;
    return next.frame;
  }

  /** `ws` calls back, in order, once each frame is written to the OS or can no longer be. */
  private readonly onWritten = (): void => {
    this.writesDone++;
    if (this.waitingForDrain && this.writesDone === this.writesStarted) {
      this.waitingForDrain = false;
      this.scheduleFlush();
    }
  };

  private waitForDrain(): void {
    this.waitingForDrain = true;
    if (this.writesDone !== this.writesStarted) return;
    // Nothing of ours is in flight to call us back (the bytes are someone else's): poll.
    setTimeout(() => {
      this.waitingForDrain = false;
      this.scheduleFlush();
    }, DRAIN_POLL_MS).unref();
  }
}

function textOf(data: unknown): string {
  if (typeof data === "string") return data;
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return "";
}
