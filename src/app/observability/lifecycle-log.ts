import type { DomainEvent } from "../../domain/events.js";
import { BLOCK_STOP_REASON } from "../../domain/server/lifecycle.js";
import type { EventBus } from "../event-bus.js";
import type { Logger } from "../ports/logger.js";

export interface LifecycleLogDeps {
  bus: EventBus;
  logger: Logger;
  /** The mode (`subprocess`, `docker`, `remote`) of a server of this replica, for the start line. */
  modeOf: (id: string) => string | undefined;
}

/**
 * One log line for each lifecycle and discovery decision this replica makes (a peer logs its
 * own), read from the events that record them, with the event's fields and nothing secret:
 *
 * - INFO `MCP server started` (mode, duration, tools), `MCP server stopped` (reason);
 * - WARN `MCP server degraded` (reason, consecutive failures), `MCP server dead` for a server
 *   given up on or stopped for undeclared capabilities;
 * - INFO `discovered MCP server registered`, `... quarantined` (reason), `... approved` (by whom),
 *   `... rejected` (by whom).
 *
 * Decisions logged where their cause is known are not repeated here: a failed start (ERROR with
 * its reason), a lost connection (WARN with the exit), a block (INFO, whatever the server was
 * doing), a restart after a crash (INFO before each attempt). Returns the unsubscribe function.
 */
export function logLifecycle(deps: LifecycleLogDeps): () => void {
  return deps.bus.subscribe((event) => lineOf(event, deps));
}

function lineOf(event: DomainEvent, { logger, modeOf }: LifecycleLogDeps): void {
  switch (event.type) {
    case "McpServerStarted":
      logger.info(
        {
          mcp_server_id: event.mcp_server_id,
          mode: modeOf(event.mcp_server_id),
          duration_ms: event.startup_duration_ms,
          tools_count: event.tools_count,
        },
        "MCP server started",
      );
      return;
    case "McpServerStopped":
      if (event.reason === BLOCK_STOP_REASON) return;
      logger.info({ mcp_server_id: event.mcp_server_id, reason: event.reason }, "MCP server stopped");
      return;
    case "McpServerDegraded":
      logger.warn(
        {
          mcp_server_id: event.mcp_server_id,
          reason: event.reason,
          consecutive_failures: event.consecutive_failures,
        },
        "MCP server degraded",
      );
      return;
    case "McpServerDied":
      // A crash and a failed start are logged with their cause where they happen.
      if (event.reason === "crashed" || event.reason === "start_failed") return;
      logger.warn(
        { mcp_server_id: event.mcp_server_id, reason: event.reason, revived_by: "start" },
        "MCP server dead",
      );
      return;
    case "McpServerRegistered":
      if (event.source !== "discovery") return;
      logger.info(
        { mcp_server_id: event.mcp_server_id, mode: event.mode },
        "discovered MCP server registered",
      );
      return;
    case "DiscoveredServerQuarantined":
      logger.info(
        { mcp_server_id: event.mcp_server_id, source_id: event.source_id, reason: event.reason },
        "discovered MCP server quarantined",
      );
      return;
    case "DiscoveredServerApproved":
      logger.info(
        { mcp_server_id: event.mcp_server_id, source_id: event.source_id, approved_by: event.approved_by },
        "discovered MCP server approved",
      );
      return;
    case "DiscoveredServerRejected":
      logger.info(
        { mcp_server_id: event.mcp_server_id, source_id: event.source_id, rejected_by: event.rejected_by },
        "discovered MCP server rejected",
      );
      return;
  }
}
