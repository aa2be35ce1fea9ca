import type { CloseTrigger } from "./group/circuit-state.js";
import type { GroupState } from "./group/group-snapshot.js";
import type { AgentPolicyEntry } from "./policy/agent-policy.js";
import type { DigestEnforcement } from "./policy/digest-pins.js";
import type { DeadReason, ServerState } from "./server/server-state.js";

/**
 * Domain events: one discriminated union, keyed by `type`. The envelope (`event_id`, `occurred_at`,
 * `produced_by`) is added by the application when it publishes, since ids and clocks are I/O.
 */
export type DomainEventPayload =
  /**
   * Authentication and authorization outcomes (spec 2 §6). Failures and denials are published
   * every time; successes and grants at most once per principal (and permissions) per
   * `OUTCOME_SAMPLE_MS` on each replica (see app/auth/access-events.ts). Never a credential.
   */
  | {
      type: "AuthenticationSucceeded";
      principal_id: string;
      auth_method: "api_key" | "jwt";
      tenant_id: string | null;
    }
  | {
      type: "AuthenticationFailed";
      /** `session`: the console's cookie (docs/console.md). */
      auth_method: "api_key" | "jwt" | "session" | "none";
      reason: string;
      client_address: string;
    }
  | {
      type: "AuthorizationGranted";
      principal_id: string;
      permissions: string[];
      tenant_id: string | null;
      /** `METHOD /path` or `mcp:<tool>` / the operation asked for. */
      resource: string;
    }
  | {
      type: "AuthorizationDenied";
      principal_id: string;
      permissions: string[];
      tenant_id: string | null;
      resource: string;
    }
  /*
   * API keys and role assignments changed through `/auth`: security events (the
   * `/observability/security` view lists them). Never a raw key or its hash. Published only when
   * something changed (a second revocation, or an assignment that existed, publishes nothing).
   * `tenant_id`: the key's tenant, or the tenant of a `tenant:<id>` scope; null otherwise.
   */
  | {
      type: "ApiKeyCreated";
      key_id: string;
      principal_id: string;
      name: string;
      created_by: string;
      /** Epoch seconds; null never expires. */
      expires_at: number | null;
      tenant_id: string | null;
    }
  | {
      type: "ApiKeyRevoked";
      key_id: string;
      principal_id: string;
      revoked_by: string;
      reason: string;
      tenant_id: string | null;
    }
  | {
      type: "RoleAssigned";
      principal_id: string;
      role_name: string;
      scope: string;
      assigned_by: string;
      tenant_id: string | null;
    }
  | {
      type: "RoleRevoked";
      principal_id: string;
      role_name: string;
      scope: string;
      revoked_by: string;
      tenant_id: string | null;
    }
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
      /**
       * The upstream answered, with `isError: true`: the tool reported a failure (`gateway_call`
       * counts the call as failed, error type `ToolError`). Absent otherwise.
       */
      is_error?: true;
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
      /** For a call refused by a rate limit or tenant quota: the budget and why (`rate`, ...). */
      limit?: { budget: string; reason: string };
    }
  | {
      /** A listed tool's digest differs from its pin: published once per drift (spec 2 §6). */
      type: "DigestMismatchEvent";
      mcp_server_id: string;
      tool_name: string;
      pinned_digest: string;
      observed_digest: string;
      /** The tenant of a per-tenant pin; null for a pin of every caller. */
      tenant_id: string | null;
      /** The server or group whose `tool_projection` declares the pin. */
      declared_on: string;
      enforcement: DigestEnforcement;
    }
  | {
      /**
       * The L7 egress policy's verdict on one tool call (spec 2 §6), in either mode. Names rules and
       * secret pattern groups, never argument values.
       */
      type: "EgressPolicyEnforced";
      /** The server whose policy decided (the member, for a call routed through a group). */
      mcp_server_id: string;
      /** The group the call was routed through, when it was. */
      group_id?: string;
      tool_name: string;
      call_id: string;
      requested_by: string;
      tenant_id: string | null;
      policy_id: string;
      mode: "Audit" | "Enforce";
      verdict: "allow" | "deny" | "requireApproval";
      /** False in Audit mode: the verdict was recorded and the call went on. */
      enforced: boolean;
      /** What decided: `tools.deny:<glob>`, `defaultAction:Deny`, `arguments.secretPatterns:<group>`, ... */
      decided_by: string;
      reasons: string[];
      secret_groups: string[];
      /** UTF-8 bytes of the arguments as JSON; null when they could not be encoded. */
      payload_bytes: number | null;
    }
  | {
      /** An MCP session of the gateway's endpoint was suspended (spec 1 "Session"); peers re-read the registry. */
      type: "SessionSuspended";
      session_id: string;
      reason: string;
      suspended_by: string;
    }
  | { type: "SessionResumed"; session_id: string; resumed_by: string }
  | {
      /** A runtime change of the tool policies over a server or group (front-door listings follow). */
      type: "ToolPolicyChanged";
      /** `*` when the change concerns every server. */
      mcp_server_id: string;
      change: "withdrawn" | "restored" | "stored_policy_set" | "stored_policy_deleted" | "agent_policy_set";
      tool_name?: string;
      tenant_id?: string | null;
      /** With `agent_policy_set`: the policy pushed, for the event log's readers (peers read the store). */
      agent_policy?: { version: number; tool_policies: readonly AgentPolicyEntry[] };
    }
  | { type: "HealthCheckPassed"; mcp_server_id: string; duration_ms: number }
  | { type: "HealthCheckFailed"; mcp_server_id: string; consecutive_failures: number; error: string }
  | { type: "GroupStateChanged"; group_id: string; old_state: GroupState; new_state: GroupState }
  /** A group created through REST was saved (created or changed) or deleted; peers read it again. */
  | { type: "GroupConfigChanged"; group_id: string; change: "saved" | "deleted" }
  /**
   * The server catalog (`/catalog`): an entry created or deleted, and a server registered from an
   * entry (besides the registration's own `McpServerRegistered`, in the server's stream).
   */
  | { type: "CatalogEntryCreated"; entry_id: string; name: string; created_by: string }
  | { type: "CatalogEntryDeleted"; entry_id: string; name: string; deleted_by: string }
  | {
      type: "CatalogEntryDeployed";
      entry_id: string;
      name: string;
      mcp_server_id: string;
      deployed_by: string;
    }
  | {
      type: "GroupMemberRotationChanged";
      group_id: string;
      member_id: string;
      in_rotation: boolean;
      consecutive_failures: number;
      consecutive_successes: number;
    }
  | {
      /** A call was held for a human decision; on channel `event_stream` this event is the delivery. */
      type: "ToolApprovalRequested";
      approval_id: string;
      mcp_server_id: string;
      tool_name: string;
      /** Redacted: values under secret-like keys and secret-looking values are replaced. */
      arguments: Record<string, unknown>;
      arguments_hash: string;
      channel: string;
      /** Epoch seconds. */
      expires_at: number;
      requested_by: string;
      tenant_id: string | null;
      /** What asked for the hold: `approval_list`, `l7_policy` or `ui_resource`. */
      source: string;
    }
  | {
      type: "ToolApprovalGranted";
      approval_id: string;
      mcp_server_id: string;
      tool_name: string;
      tenant_id: string | null;
      decided_by: string | null;
      decided_at: number;
    }
  | {
      type: "ToolApprovalDenied";
      approval_id: string;
      mcp_server_id: string;
      tool_name: string;
      tenant_id: string | null;
      /** Null when the gateway denied it (an undeliverable request with `delivery.required`). */
      decided_by: string | null;
      reason: string | null;
    }
  | {
      type: "ToolApprovalExpired";
      approval_id: string;
      mcp_server_id: string;
      tool_name: string;
      tenant_id: string | null;
      expired_at: number;
      reason: string | null;
    }
  | {
      /** An approve that came after the held call's deadline: recorded, never run. */
      type: "ToolApprovalCancelled";
      approval_id: string;
      mcp_server_id: string;
      tool_name: string;
      tenant_id: string | null;
      attempted_by: string | null;
      reason: string | null;
    }
  | {
      /** Before a configuration reload starts (spec 2 §6); `graceful` as the caller asked. */
      type: "ConfigurationReloadRequested";
      config_path: string;
      graceful: boolean;
      requested_by: string;
    }
  | {
      type: "ConfigurationReloaded";
      config_path: string;
      mcp_servers_added: string[];
      mcp_servers_removed: string[];
      mcp_servers_updated: string[];
      mcp_servers_unchanged: string[];
      reload_duration_ms: number;
      requested_by: string;
    }
  | { type: "ConfigurationReloadFailed"; config_path: string; reason: string; requested_by: string }
  | {
      /** One source's discovery cycle ended (`failed`: its scan could not be read). */
      type: "DiscoveryCycleCompleted";
      source_id: string;
      source_type: string;
      mcp_servers_found: number;
      registered: number;
      updated: number;
      deregistered: number;
      quarantined: number;
      failed: boolean;
    }
  | { type: "DiscoveredServerQuarantined"; mcp_server_id: string; source_id: string; reason: string }
  | { type: "DiscoveredServerApproved"; mcp_server_id: string; source_id: string; approved_by: string }
  | { type: "DiscoveredServerRejected"; mcp_server_id: string; source_id: string; rejected_by: string }
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
