import { describe, expect, it } from "vitest";
import { NodeIdGenerator } from "../../../src/adapters/system/node-ids.js";
import { EventBus } from "../../../src/app/event-bus.js";
import { logLifecycle } from "../../../src/app/observability/lifecycle-log.js";
import type { Logger } from "../../../src/app/ports/logger.js";
import type { DomainEventPayload } from "../../../src/domain/events.js";
import { BLOCK_STOP_REASON } from "../../../src/domain/server/lifecycle.js";

function setup() {
  const lines: [string, string, Record<string, unknown>][] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push([level, message, fields]);
  };
  const logger: Logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  };
  const clock = { now: () => 0, monotonic: () => 0 };
  const bus = new EventBus({ clock, ids: new NodeIdGenerator(), logger, instanceId: "test" });
  const stop = logLifecycle({ bus, logger, modeOf: (id) => (id === "math" ? "subprocess" : undefined) });
  return { lines, publish: (payload: DomainEventPayload) => bus.publish([payload]), stop };
}

describe("the lifecycle log", () => {
  it("writes one line per decision with the event's fields", () => {
    const { lines, publish } = setup();
    publish({ type: "McpServerStarted", mcp_server_id: "math", tools_count: 4, startup_duration_ms: 210 });
    publish({ type: "McpServerStopped", mcp_server_id: "math", reason: "idle" });
    publish({
      type: "McpServerDegraded",
      mcp_server_id: "math",
      reason: "health_check_failures",
      consecutive_failures: 3,
    });
    publish({ type: "McpServerDied", mcp_server_id: "math", reason: "given_up", retry_allowed_at: null });
    publish({ type: "McpServerRegistered", mcp_server_id: "found", mode: "remote", source: "discovery" });
    publish({
      type: "DiscoveredServerQuarantined",
      mcp_server_id: "odd",
      source_id: "k8s",
      reason: "validation_failed",
    });
    publish({
      type: "DiscoveredServerApproved",
      mcp_server_id: "odd",
      source_id: "k8s",
      approved_by: "admin",
    });
    publish({
      type: "DiscoveredServerRejected",
      mcp_server_id: "bad",
      source_id: "k8s",
      rejected_by: "admin",
    });
    expect(lines).toEqual([
      [
        "info",
        "MCP server started",
        { mcp_server_id: "math", mode: "subprocess", duration_ms: 210, tools_count: 4 },
      ],
      ["info", "MCP server stopped", { mcp_server_id: "math", reason: "idle" }],
      [
        "warn",
        "MCP server degraded",
        { mcp_server_id: "math", reason: "health_check_failures", consecutive_failures: 3 },
      ],
      ["warn", "MCP server dead", { mcp_server_id: "math", reason: "given_up", revived_by: "start" }],
      ["info", "discovered MCP server registered", { mcp_server_id: "found", mode: "remote" }],
      [
        "info",
        "discovered MCP server quarantined",
        { mcp_server_id: "odd", source_id: "k8s", reason: "validation_failed" },
      ],
      [
        "info",
        "discovered MCP server approved",
        { mcp_server_id: "odd", source_id: "k8s", approved_by: "admin" },
      ],
      [
        "info",
        "discovered MCP server rejected",
        { mcp_server_id: "bad", source_id: "k8s", rejected_by: "admin" },
      ],
    ]);
  });

  it("leaves to their own lines what is logged with its cause, and says nothing of servers from configuration", () => {
    const { lines, publish, stop } = setup();
    publish({ type: "McpServerDied", mcp_server_id: "math", reason: "crashed", retry_allowed_at: 5 });
    publish({ type: "McpServerDied", mcp_server_id: "math", reason: "start_failed", retry_allowed_at: 5 });
    publish({ type: "McpServerStopped", mcp_server_id: "math", reason: BLOCK_STOP_REASON });
    publish({ type: "McpServerRegistered", mcp_server_id: "math", mode: "subprocess", source: "config" });
    expect(lines).toEqual([]);
    stop();
    publish({ type: "McpServerStopped", mcp_server_id: "math", reason: "idle" });
    expect(lines).toEqual([]);
  });
});
