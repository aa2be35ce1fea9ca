import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { Logger } from "../app/ports/logger.js";
import { recoveryDelaySeconds } from "../domain/server/backoff.js";

/** Decisions "Lifecycle details": recovery gives up after three retries. */
const MAX_RETRIES = 3;

export interface AutoRecoveryDeps {
  fleet: Fleet;
  bus: EventBus;
  logger: Logger;
  /** Waits before retry `attempt` (0-based); 5 s, then doubling, capped at 60 s unless tests say otherwise. */
  delayMs?: (attempt: number) => number;
}

/**
 * Restarts a server that crashed: retries at 5 s, 10 s, 20 s; after three failed retries the server
 * is dead with reason `given_up`, and only a deliberate start brings it back. A retry is skipped
 * when someone else already started (or stopped) the server meanwhile.
 */
export class AutoRecovery {
  private unsubscribe: (() => void) | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly recovering = new Set<string>();
  private readonly delayMs: (attempt: number) => number;

  constructor(private readonly deps: AutoRecoveryDeps) {
    this.delayMs = deps.delayMs ?? ((attempt) => recoveryDelaySeconds(attempt) * 1000);
  }

  start(): void {
    this.unsubscribe ??= this.deps.bus.subscribe((event) => {
      if (event.type === "McpServerDied" && event.reason === "crashed") this.schedule(event.mcp_server_id, 0);
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.recovering.clear();
  }

  private schedule(id: string, attempt: number): void {
    if (attempt === 0) {
      if (this.recovering.has(id)) return;
      this.recovering.add(id);
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.retry(id, attempt);
    }, this.delayMs(attempt));
    timer.unref();
    this.timers.add(timer);
  }

  private async retry(id: string, attempt: number): Promise<void> {
    const { fleet, logger } = this.deps;
    const server = fleet.get(id);
    const state = server?.lifecycle.state;
    if (
      !server ||
      server.starting ||
      (state !== "dead" && state !== "degraded") ||
      server.lifecycle.blocked
    ) {
      this.recovering.delete(id);
      return;
    }
    // The outcome is logged by the start itself (`MCP server started`, or its failure at ERROR).
    logger.info({ mcp_server_id: id, attempt: attempt + 1 }, "restarting MCP server after a crash");
    try {
      await fleet.start(server, true);
      this.recovering.delete(id);
    } catch {
      if (!this.unsubscribe) return;
      if (attempt + 1 < MAX_RETRIES) return this.schedule(id, attempt + 1);
      this.recovering.delete(id);
      // Logged as `MCP server dead` (reason `given_up`) from the event it records.
      fleet.transition(server, { on: "gave_up" });
    }
  }
}
