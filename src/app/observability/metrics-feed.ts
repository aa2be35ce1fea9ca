import { GatewayError } from "../../domain/errors.js";
import { invocationOutcome } from "../audit-recorder.js";
import type { EventBus } from "../event-bus.js";
import type { GatewayMetrics, ToolCallStatus } from "../ports/gateway-metrics.js";

/**
 * Feeds the metrics registry from the events this replica produces (peers' events are theirs to
 * count). Tool calls are classified as the audit trail classifies them (success, failure, denied),
 * except that a tool's own error result (`isError: true`, a success for the audit trail) is
 * `tool_error`. Runs synchronously inside `publish`, with no I/O. Returns the unsubscribe function.
 */
export function feedMetrics(bus: EventBus, metrics: GatewayMetrics): () => void {
  return bus.subscribe((event) => {
    metrics.observe(event);
    if (event.type !== "ToolInvocationCompleted" && event.type !== "ToolInvocationFailed") return;
    const status: ToolCallStatus =
      event.type === "ToolInvocationCompleted" && event.is_error ? "tool_error" : invocationOutcome(event);
    metrics.observeToolCall({
      mcp_server: event.mcp_server_id,
      tool: event.tool_name,
      status,
      duration_ms: event.duration_ms,
      error_type: event.type === "ToolInvocationFailed" ? event.error_type : null,
    });
    if (event.type === "ToolInvocationFailed" && event.limit) metrics.observeRefusal(event.limit);
  });
}

/** Counts a command-bus rate-limit refusal (no tool-call event records it), then lets it go on. */
export function countRateLimitRefusal(metrics: GatewayMetrics | undefined, error: unknown): void {
  if (!metrics || !(error instanceof GatewayError) || error.type !== "RateLimitExceeded") return;
  const budget = error.details?.budget;
  metrics.observeRefusal({ budget: typeof budget === "string" ? budget : "command", reason: "rate" });
}
