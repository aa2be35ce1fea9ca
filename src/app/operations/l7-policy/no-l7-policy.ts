import { type GatewayError, notFound, RequestRejected } from "../../../domain/errors.js";
import type { AppServices } from "../../services.js";

/**
 * The refusal when `serverId` has no policy: 404 `{error:'no_l7_policy', mcp_server_id}` (spec 1
 * "L7 egress policy") for a known server, `McpServerNotFoundError` for an unknown one.
 */
export function noL7Policy(
  services: Pick<AppServices, "fleet">,
  serverId: string,
): RequestRejected | GatewayError {
  if (!services.fleet.has(serverId)) return notFound(serverId);
  return new RequestRejected(404, "no_l7_policy", `MCP server '${serverId}' has no L7 egress policy`, {
    mcp_server_id: serverId,
  });
}
