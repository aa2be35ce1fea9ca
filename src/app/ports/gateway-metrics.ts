import type { DomainEvent } from "../../domain/events.js";
import type { CumulativeBucket } from "../../domain/metrics/histogram-quantile.js";

/** One HTTP request served, as the HTTP edge measured it. */
export interface HttpRequestSample {
  method: string;
  /** The route pattern (`/api/mcp_servers/:id`), never the raw URL; `unmatched` for a 404. */
  route: string;
  status_code: number;
  duration_seconds: number;
}

/**
 * One tool call's outcome: the audit trail's classification (success, failure, denied), with a
 * tool's own error result (`isError: true`) told apart from a success as `tool_error`.
 */
export interface ToolCallSample {
  /** The server called, or the group for a call routed through one. */
  mcp_server: string;
  tool: string;
  status: ToolCallStatus;
  duration_ms: number;
  /** Null for a success. */
  error_type: string | null;
}

/** The `status` label of a tool call. */
export type ToolCallStatus = "success" | "tool_error" | "failure" | "denied";

/** A call refused by a rate limit or tenant quota (`reason`: `rate`, `concurrency`, `no_budget`). */
export interface LimitRefusal {
  budget: string;
  reason: string;
}

/** Aggregates of one `<server>.<tool>` since the process started. */
export interface ToolCallStats {
  count: number;
  success: number;
  failure: number;
  denied: number;
  total_duration_ms: number;
  avg_duration_ms: number;
}

/** Tool-call aggregates for the JSON form of `gateway_metrics`. */
export interface ToolCallSummary {
  /** Keyed `<server>.<tool>`. */
  tool_calls: Record<string, ToolCallStats>;
  /** Failed and refused calls by error type. */
  errors: Record<string, number>;
  performance: { total_calls: number; avg_duration_ms: number; max_duration_ms: number };
}

/**
 * The tool calls of one `mcp_server` label since the process started, as the registry counted them
 * (the same counts `GET /metrics` exposes, read back: nothing is counted twice).
 */
export interface CallTotals {
  /** The server called, or the group for a call routed through one. */
  readonly mcp_server: string;
  readonly success: number;
  readonly failure: number;
  readonly denied: number;
  /**
   * Durations of the calls that ran (success and failure: a denied call never reached a server), in
   * milliseconds, as the cumulative buckets of the duration histogram: ascending, the last `Infinity`.
   */
  readonly latency_ms: readonly CumulativeBucket[];
}

/**
 * The gateway's metrics registry (one per gateway, never the process-global one).
 *
 * Guaranteed: the `observe*` methods do no I/O and never throw for an event they do
 * not know (they ignore it), so they are safe on the tool-call path; `exposition` answers the
 * Prometheus text format of everything observed so far plus process metrics. Not guaranteed:
 * metrics of other replicas (each replica exposes its own).
 */
export interface GatewayMetrics {
  /** Every event this replica produced (lifecycle, health, circuit, approvals, egress, pins, appends). */
  observe(event: DomainEvent): void;
  observeToolCall(call: ToolCallSample): void;
  observeRefusal(refusal: LimitRefusal): void;
  observeHttpRequest(sample: HttpRequestSample): void;
  /** Prometheus text exposition format. */
  exposition(): Promise<string>;
  /** The content type of `exposition` (Prometheus text format 0.0.4). */
  readonly contentType: string;
  summary(): ToolCallSummary;
  /**
   * Tool calls by `mcp_server` label since the process started, one entry per label seen (none for a
   * server never called). Reads the registry without changing it; no I/O.
   */
  callTotals(): Promise<CallTotals[]>;
}
