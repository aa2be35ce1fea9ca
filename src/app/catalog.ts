import { z } from "zod";
import type { Operation } from "./operation.js";
import { getApproval } from "./operations/approvals/get-approval.js";
import { listApprovals } from "./operations/approvals/list-approvals.js";
import { resolveApproval } from "./operations/approvals/resolve-approval.js";
import { resolveApprovalCallback } from "./operations/approvals/resolve-approval-callback.js";
import { AUTH_OPERATIONS } from "./operations/auth/auth-operations.js";
import { backupConfig } from "./operations/backup-config.js";
import { blockServer } from "./operations/block-server.js";
import { callTool } from "./operations/call-tool.js";
import { callTools, callToolsParams } from "./operations/call-tools.js";
import { deleteContinuation, fetchContinuation } from "./operations/continuations.js";
import { deleteServer } from "./operations/delete-server.js";
import { diffConfig } from "./operations/diff-config.js";
import { approveDiscovered } from "./operations/discovery/approve-discovered.js";
import { discover } from "./operations/discovery/discover.js";
import { discovered, listPending } from "./operations/discovery/discovered.js";
import {
  deleteDiscoverySource,
  discoverySources,
  enableDiscoverySource,
  registerDiscoverySource,
  scanDiscoverySource,
  updateDiscoverySource,
} from "./operations/discovery/discovery-sources.js";
import { listQuarantined, quarantined } from "./operations/discovery/quarantined.js";
import { durableConfig } from "./operations/export-config.js";
import { exportRunningConfig } from "./operations/export-running-config.js";
import { gatewayHealth } from "./operations/gateway-health.js";
import { gatewayMetrics } from "./operations/gateway-metrics.js";
import { gatewayStatus } from "./operations/gateway-status.js";
import { getServer } from "./operations/get-server.js";
import { restoreTool } from "./operations/governance/restore-tool.js";
import { resumeSession } from "./operations/governance/resume-session.js";
import { setAgentPolicy } from "./operations/governance/set-agent-policy.js";
import { suspendSession } from "./operations/governance/suspend-session.js";
import { withdrawTool } from "./operations/governance/withdraw-tool.js";
import { addGroupMember } from "./operations/groups/add-group-member.js";
import { createGroup } from "./operations/groups/create-group.js";
import { deleteGroup } from "./operations/groups/delete-group.js";
import { getGroup } from "./operations/groups/get-group.js";
import { groupSettings } from "./operations/groups/group-settings.js";
import { listGroups } from "./operations/groups/list-groups.js";
import { rebalanceGroup } from "./operations/groups/rebalance-group.js";
import { removeGroupMember } from "./operations/groups/remove-group-member.js";
import { updateGroup } from "./operations/groups/update-group.js";
import { deleteL7Policy } from "./operations/l7-policy/delete-l7-policy.js";
import { getL7Policy } from "./operations/l7-policy/get-l7-policy.js";
import { setL7Policy } from "./operations/l7-policy/set-l7-policy.js";
import { listReplicas } from "./operations/list-replicas.js";
import { listServers } from "./operations/list-servers.js";
import { listTools } from "./operations/list-tools.js";
import { loadServer } from "./operations/load-server.js";
import { compactStream } from "./operations/maintenance/compact-stream.js";
import { activeAlerts } from "./operations/observability/active-alerts.js";
import { auditRecords } from "./operations/observability/audit-records.js";
import { metricsHistory } from "./operations/observability/metrics-history.js";
import { metricsSnapshot } from "./operations/observability/metrics-snapshot.js";
import { securityEvents } from "./operations/observability/security-events.js";
import { registerServer } from "./operations/register-server.js";
import { relayRequest, relayToolCall } from "./operations/relay-upstream.js";
import { reloadConfig, reloadConfigParams } from "./operations/reload-config.js";
import { createCatalogEntry } from "./operations/server-catalog/create-catalog-entry.js";
import { deleteCatalogEntry } from "./operations/server-catalog/delete-catalog-entry.js";
import { deployCatalogEntry } from "./operations/server-catalog/deploy-catalog-entry.js";
import { getCatalogEntry } from "./operations/server-catalog/get-catalog-entry.js";
import { listCatalogEntries } from "./operations/server-catalog/list-catalog-entries.js";
import { serverHealth } from "./operations/server-health.js";
import { serverLogs } from "./operations/server-logs.js";
import { serverTools } from "./operations/server-tools.js";
import { startServer } from "./operations/start-server.js";
import { stopServer } from "./operations/stop-server.js";
import { systemInfo } from "./operations/system-info.js";
import { toolHistory } from "./operations/tool-history.js";
import { unloadServer } from "./operations/unload-server.js";
import { updateServer } from "./operations/update-server.js";
import { warmServers } from "./operations/warm-servers.js";
import { whoami } from "./operations/whoami.js";

/** Every operation of the application, by name. */
export const OPERATIONS = {
  listServers,
  getServer,
  registerServer,
  updateServer,
  deleteServer,
  startServer,
  stopServer,
  blockServer,
  serverTools,
  serverHealth,
  serverLogs,
  toolHistory,
  listTools,
  systemInfo,
  whoami,
  durableConfig,
  exportRunningConfig,
  backupConfig,
  diffConfig,
  gatewayStatus,
  gatewayHealth,
  warmServers,
  callTools,
  callTool,
  listReplicas,
  groupSettings,
  fetchContinuation,
  deleteContinuation,
  reloadConfig,
  loadServer,
  unloadServer,
  gatewayMetrics,
  discover,
  discovered,
  discoverySources,
  quarantined,
  approveDiscovered,
  listPending,
  listQuarantined,
  registerDiscoverySource,
  updateDiscoverySource,
  deleteDiscoverySource,
  scanDiscoverySource,
  enableDiscoverySource,
  listGroups,
  getGroup,
  createGroup,
  updateGroup,
  deleteGroup,
  rebalanceGroup,
  addGroupMember,
  removeGroupMember,
  listApprovals,
  getApproval,
  resolveApproval,
  resolveApprovalCallback,
  withdrawTool,
  restoreTool,
  suspendSession,
  resumeSession,
  setAgentPolicy,
  getL7Policy,
  setL7Policy,
  deleteL7Policy,
  // Observability and maintenance routes of an earlier revision (spec 1), served again
  auditRecords,
  securityEvents,
  activeAlerts,
  compactStream,
  listCatalogEntries,
  getCatalogEntry,
  createCatalogEntry,
  deleteCatalogEntry,
  deployCatalogEntry,
  // Metrics of an earlier revision's routes (spec 1), served again: the snapshot and the history
  metricsSnapshot,
  metricsHistory,
  relayToolCall,
  relayRequest,
  ...AUTH_OPERATIONS,
} as const;

/** The same operations by `Operation.name`, as forwarded leader-only commands name them. */
export const OPERATIONS_BY_NAME: ReadonlyMap<string, Operation> = new Map(
  Object.values(OPERATIONS).map((operation): [string, Operation] => [operation.name, operation as Operation]),
);

/**
 * How an operation is offered as a `gateway_*` MCP tool: its name, description and parameters.
 * Parameters default to the operation's own input; `toInput` adapts where the tool differs.
 */
export interface ToolExposure {
  readonly name: string;
  readonly description: string;
  readonly operation: Operation;
  readonly params: z.ZodObject;
  readonly toInput?: (args: Record<string, unknown>) => unknown;
  /** Exempt from the command-bus rate limit (spec 2 §8). */
  readonly readOnly: boolean;
  /** Offered on the front door too (never `gateway_call` and the continuation tools). */
  readonly frontDoor: boolean;
}

const mcpServerParam = z.strictObject({ mcp_server: z.string().min(1).describe("MCP server (or group) id") });

function expose(
  name: string,
  operation: Operation,
  description: string,
  options: Partial<Pick<ToolExposure, "params" | "toInput" | "readOnly" | "frontDoor">> = {},
): ToolExposure {
  return {
    name,
    description,
    operation,
    params: options.params ?? (operation.input as z.ZodObject),
    ...(options.toInput && { toInput: options.toInput }),
    readOnly: options.readOnly ?? false,
    frontDoor: options.frontDoor ?? true,
  };
}

/** The 22 management tools of spec 2 §4, in its order. */
export const TOOL_EXPOSURES: readonly ToolExposure[] = [
  expose(
    "gateway_list",
    listServers,
    "List MCP servers and groups with their state. Optional state_filter: cold, ready, degraded, dead " +
      "(servers) or healthy, partial, inactive (groups).",
    { readOnly: true },
  ),
  expose(
    "gateway_status",
    gatewayStatus,
    "Status of this replica: every server and group with an indicator, a summary and a text rendering.",
    { readOnly: true },
  ),
  expose(
    "gateway_tools",
    serverTools,
    "Tools of one MCP server with schemas and digests. Starts a cold server to learn them (never a dead one).",
    { params: mcpServerParam, toInput: (args) => ({ ...args, start: true }) },
  ),
  expose(
    "gateway_details",
    getServer,
    "Details of one MCP server: state, tools with digests, health counters and its tool policy.",
    { params: mcpServerParam, readOnly: true },
  ),
  expose(
    "gateway_health",
    gatewayHealth,
    "Health of this replica: servers by state, groups, rate limiting configuration.",
    { readOnly: true },
  ),
  expose(
    "gateway_start",
    startServer,
    "Start an MCP server (a dead one at once) and return its tool names.",
    {
      params: mcpServerParam,
    },
  ),
  expose("gateway_stop", stopServer, "Stop a running MCP server.", { params: mcpServerParam }),
  expose(
    "gateway_warm",
    warmServers,
    "Start MCP servers ahead of use. mcp_servers: comma-separated ids, or null for every server except dead ones.",
  ),
  expose(
    "gateway_reload_config",
    reloadConfig,
    "Reload the configuration file the gateway was started with (graceful is recorded on the request).",
    { params: reloadConfigParams },
  ),
  expose(
    "gateway_load",
    loadServer,
    "Install an MCP server from the MCP registry by name (full, or the part after '/') as a runtime server " +
      "of this replica, not persisted. Statuses: loaded, ambiguous, not_found, missing_secrets, unverified " +
      "(retry with force_unverified), already_loaded, failed. allow_tools / deny_tools restrict its tools.",
  ),
  expose(
    "gateway_unload",
    unloadServer,
    "Stop and remove a runtime server installed with gateway_load (declared and REST servers stay).",
  ),
  expose(
    "gateway_metrics",
    gatewayMetrics,
    "Gateway metrics as JSON, or Prometheus text with format=prometheus.",
    {
      readOnly: true,
    },
  ),
  expose("gateway_discover", discover, "Run a discovery cycle over every configured source now."),
  expose("gateway_discovered", discovered, "Servers found by discovery and waiting for registration.", {
    readOnly: true,
  }),
  expose("gateway_sources", discoverySources, "Configured discovery sources with their health."),
  expose("gateway_quarantine", quarantined, "Discovered servers held in quarantine, with the reason.", {
    readOnly: true,
  }),
  expose(
    "gateway_approve",
    approveDiscovered,
    "Approve (register) or reject a quarantined discovered server: approve=true by default.",
  ),
  expose("gateway_group_list", listGroups, "Groups with their state, members and circuit breaker.", {
    readOnly: true,
  }),
  expose(
    "gateway_group_rebalance",
    rebalanceGroup,
    "Re-check a group's member health and rotation, closing its circuit when enough members are healthy.",
  ),
  expose(
    "gateway_call",
    callTools,
    "Call tools of upstream MCP servers: `calls` is a list of {mcp_server, tool, arguments, timeout?}. " +
      "Calls run concurrently (max_concurrency), each within `timeout` seconds (1-300); fail_fast cancels " +
      "calls not yet started after a failure; max_attempts retries retryable failures. With truncation on, " +
      "results over the batch budget are cut and the rest is kept under continuation_id " +
      "(gateway_fetch_continuation).",
    { params: callToolsParams, frontDoor: false },
  ),
  expose(
    "gateway_fetch_continuation",
    fetchContinuation,
    "Read a slice (offset, limit) of a truncated gateway_call result kept under its continuation id.",
    { frontDoor: false },
  ),
  expose(
    "gateway_delete_continuation",
    deleteContinuation,
    "Drop a continuation of a truncated gateway_call result.",
    { frontDoor: false },
  ),
];
