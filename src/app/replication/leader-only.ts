import { GatewayError } from "../../domain/errors.js";
import type { Leadership } from "../coordination/leadership.js";
import type { LeaseStore } from "../ports/lease-store.js";

/**
 * Refuses, on a follower, a command only the management lease holder may carry out (starting a
 * local-mode server: spec 2 §2 `coordination`) with `McpServerNotHereError` (409, retryable). The
 * details name the current leader (`leader_instance_id`, null when no live lease is known), so a
 * client or load balancer can send the command again to that replica. Nothing is queued: a
 * command refused here has not happened, and the caller still holds it.
 *
 * Without coordination (`leadership` undefined) this replica is the only one and nothing is refused.
 */
export async function requireLeader(
  leadership: Leadership | undefined,
  leases: { store: LeaseStore; name: string },
  what: { mcp_server_id: string; action: string },
): Promise<void> {
  if (leadership === undefined || leadership.isLeader) return;
  const lease = await leases.store.read(leases.name).catch(() => undefined);
  const leader = lease && lease.expires_in > 0 && lease.holder !== leadership.holder ? lease.holder : null;
  throw new GatewayError(
    "McpServerNotHereError",
    leader
      ? `MCP server '${what.mcp_server_id}' is managed by replica '${leader}'; send the ${what.action} there`
      : `MCP server '${what.mcp_server_id}' is managed by the leader replica, and none is elected now; retry later`,
    { mcp_server_id: what.mcp_server_id, action: what.action, leader_instance_id: leader },
  );
}
