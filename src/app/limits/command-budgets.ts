import { TOOL_EXPOSURES } from "../catalog.js";
import type { Operation } from "../operation.js";

/**
 * The "command types" of the command-bus rate limit (spec 2 §8): the budget an operation charges,
 * or null when it is exempt. One operation serves both the REST route and the MCP tool, so both
 * charge the same budget.
 *
 * - The five commands the spec names charge their command budget: `start`, `stop`, `tools`, `warm`,
 *   `reload` (e.g. `gateway_start` and `POST /api/mcp_servers/{id}/start` share `start`).
 * - Every other operation offered as a rate-limited tool charges a budget named after the tool
 *   (`gateway_call`, `gateway_load`, `gateway_sources`, ...).
 * - Operations behind the read-only tools (gateway_list, gateway_status, gateway_details,
 *   gateway_group_list, gateway_health, gateway_metrics, gateway_discovered, gateway_quarantine)
 *   are exempt on every edge.
 * - Operations without a tool (REST only): commands charge a budget named after the operation
 *   (`register-server`, `create-group`, ...); queries are reads and are exempt.
 */
export type CommandBudgetOf = (
  operation: Pick<Operation, "name" | "kind"> & Partial<Pick<Operation, "rateLimitExempt">>,
) => string | null;

/** Operation name -> the command budget the spec names for it. */
const NAMED_COMMANDS: Readonly<Record<string, string>> = {
  "start-server": "start",
  "stop-server": "stop",
  "server-tools": "tools",
  "warm-servers": "warm",
  "reload-config": "reload",
};

/** Operation name -> its budget, or null when exempt, for every operation offered as a tool. */
const BY_TOOL: ReadonlyMap<string, string | null> = new Map(
  TOOL_EXPOSURES.map((exposure) => [
    exposure.operation.name,
    exposure.readOnly ? null : (NAMED_COMMANDS[exposure.operation.name] ?? exposure.name),
  ]),
);

export const commandBudgetOf: CommandBudgetOf = (operation) => {
  if (operation.rateLimitExempt) return null;
  const byTool = BY_TOOL.get(operation.name);
  if (byTool !== undefined) return byTool;
  return NAMED_COMMANDS[operation.name] ?? (operation.kind === "command" ? operation.name : null);
};
