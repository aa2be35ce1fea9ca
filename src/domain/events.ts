import type { CloseTrigger } from "./group/circuit-breaker.js";
import type { GroupState } from "./group/group-state.js";
import type { DeadReason, ServerState } from "./server/lifecycle.js";

/**
 * Domain events: one discriminated union, keyed by `type`. The envelope (`event_id`, `occurred_at`,
 * `produced_by`) is added by the application when it publishes, since ids and clocks are I/O.
 */
export type DomainEventPayload =
  | { type: "McpServerRegistered"; mcp_server_id: string; mode: string; source: string }
  | { type: "McpServerUpdated"; mcp_server_id: string; fields: string[] }
  | { type: "McpServerRemoved"; mcp_server_id: string }
  | { type: "McpServerStarted"; mcp_server_id: string; tools_count: number; startup_duration_ms: number }
  | { type: "McpServerStopped"; mcp_server_id: string; reason: string }
  | { type: "McpServerDegraded"; mcp_server_id: string; reason: string; consecutive_failures: number }
  | { type: "McpServerDied"; mcp_server_id: string; reason: DeadReason; retry_allowed_at: number | null }
  | {
      type: "ProviderStateChanged";
      mcp_server_id: string;
      old_state: ServerState;
      new_state: ServerState;
    }
  | {
      type: "ToolInvocationRequested";
      mcp_server_id: string;
      tool_name: string;
      call_id: string;
    }
  | {
      type: "ToolInvocationCompleted";
      /** The server called, or the group for a call routed through one. */
      mcp_server_id: string;
      /** For a group call: the member that served it. */
      route_backend?: string;
      /** Who called, and for which tenant, when known. */
      requested_by?: string;
      tenant_id?: string | null;
      tool_name: string;
      call_id: string;
      duration_ms: number;
      result_size_bytes: number;
    }
  | {
      type: "ToolInvocationFailed";
      mcp_server_id: string;
      route_backend?: string;
      requested_by?: string;
      tenant_id?: string | null;
      tool_name: string;
      call_id: string;
      duration_ms: number;
      error_type: string;
      error_message: string;
    }
  | { type: "HealthCheckPassed"; mcp_server_id: string; duration_ms: number }
  | { type: "HealthCheckFailed"; mcp_server_id: string; consecutive_failures: number; error: string }
  | { type: "GroupStateChanged"; group_id: string; old_state: GroupState; new_state: GroupState }
  | {
      type: "GroupMemberRotationChanged";
      group_id: string;
      member_id: string;
      in_rotation: boolean;
      consecutive_failures: number;
      consecutive_successes: number;
    }
  | { type: "CircuitBreakerOpened"; group_id: string; consecutive_failures: number }
  | {
      type: "CircuitBreakerClosed";
      group_id: string;
      trigger: CloseTrigger;
      /** Members in rotation and serviceable (not dead, not blocked) when it closed. */
      serviceable_in_rotation: number;
    };

export type DomainEventType = DomainEventPayload["type"];

export interface EventEnvelope {
  event_id: string;
  /** Epoch seconds, fractional. */
  occurred_at: number;
  /** Instance id of the replica that produced the event. */
  produced_by: string;
}

export type DomainEvent = DomainEventPayload & EventEnvelope;
