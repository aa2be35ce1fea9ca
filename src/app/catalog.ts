import { z } from "zod";
import type { Operation } from "./operation.js";
import { blockServer } from "./operations/block-server.js";
import { callTools, callToolsParams } from "./operations/call-tools.js";
import { deleteServer } from "./operations/delete-server.js";
import { gatewayHealth } from "./operations/gateway-health.js";
import { gatewayStatus } from "./operations/gateway-status.js";
import { getServer } from "./operations/get-server.js";
import { listServers } from "./operations/list-servers.js";
import { listTools } from "./operations/list-tools.js";
import { registerServer } from "./operations/register-server.js";
import { serverHealth } from "./operations/server-health.js";
import { serverLogs } from "./operations/server-logs.js";
import { serverTools } from "./operations/server-tools.js";
import { startServer } from "./operations/start-server.js";
import { stopServer } from "./operations/stop-server.js";
import { systemInfo } from "./operations/system-info.js";
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
  listTools,
  systemInfo,
  whoami,
  gatewayStatus,
  gatewayHealth,
  warmServers,
  callTools,
} as const;

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
}

const mcpServerParam = z.object({ mcp_server: z.string().min(1).describe("MCP server (or group) id") });

export const TOOL_EXPOSURES: readonly ToolExposure[] = [
  {
    name: "gateway_list",
    description:
      "List MCP servers and groups with their state. Optional state_filter: cold, ready, degraded, dead " +
      "(servers) or healthy, partial, inactive (groups).",
    operation: listServers,
    params: listServers.input,
    readOnly: true,
  },
  {
    name: "gateway_status",
    description:
      "Status of this replica: every server and group with an indicator, a summary and a text rendering.",
    operation: gatewayStatus,
    params: gatewayStatus.input,
    readOnly: true,
  },
  {
    name: "gateway_details",
    description: "Details of one MCP server: state, tools with digests, health counters and its tool policy.",
    operation: getServer,
    params: mcpServerParam,
    readOnly: true,
  },
  {
    name: "gateway_tools",
    description: "Tools of one MCP server with schemas and digests. Starts a cold server to learn them.",
    operation: serverTools,
    params: mcpServerParam,
    toInput: (args) => ({ ...args, start: true }),
    readOnly: false,
  },
  {
    name: "gateway_start",
    description: "Start an MCP server (a dead one at once) and return its tool names.",
    operation: startServer,
    params: mcpServerParam,
    readOnly: false,
  },
  {
    name: "gateway_stop",
    description: "Stop a running MCP server.",
    operation: stopServer,
    params: mcpServerParam,
    readOnly: false,
  },
  {
    name: "gateway_warm",
    description:
      "Start MCP servers ahead of use. mcp_servers: comma-separated ids, or null for every server except dead ones.",
    operation: warmServers,
    params: warmServers.input,
    readOnly: false,
  },
  {
    name: "gateway_health",
    description: "Health of this replica: servers by state, groups, rate limiting configuration.",
    operation: gatewayHealth,
    params: gatewayHealth.input,
    readOnly: true,
  },
  {
    name: "gateway_call",
    description:
      "Call tools of upstream MCP servers: `calls` is a list of {mcp_server, tool, arguments, timeout?}. " +
      "Calls run concurrently (max_concurrency), each within `timeout` seconds (1-300); fail_fast cancels " +
      "calls not yet started after a failure; max_attempts retries retryable failures.",
    operation: callTools,
    params: callToolsParams,
    readOnly: false,
  },
];
