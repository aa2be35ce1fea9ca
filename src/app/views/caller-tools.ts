import { visibleTools } from "../../domain/policy/tool-policy.js";
import type { RequestContext } from "../context.js";
import { memberPolicies } from "../routing/route-call.js";
import type { AppServices } from "../services.js";

/**
 * The tools of a server as a caller sees them in the operator views (`gateway_tools`,
 * `gateway_details`, `GET /api/tools/`): the ones every policy over the server lets this caller
 * call, or hold for approval (a group's when listed through it, the server's own, and the stored,
 * tenant and agent policies), and that no withdrawal hides from the caller's tenant, on the server
 * or on the group. The same verdict the call path reaches (spec 2 §4: listings with access
 * filtering); the shared governance copies are read fresh first.
 */
export async function toolsVisibleTo<T extends { name: string }>(
  services: Pick<AppServices, "fleet" | "groups" | "governance">,
  ctx: RequestContext,
  serverId: string,
  viaGroup: string | null,
  tools: readonly T[],
): Promise<T[]> {
  const { governance } = services;
  const reading = governance?.fresh();
  if (reading) await reading;
  const tenant = ctx.principal.tenant_id;
  const visible = visibleTools(tools, memberPolicies(services, serverId, viaGroup, false, tenant));
  if (!governance || governance.withdrawals.empty) return visible;
  const withdrawn = (id: string, tool: string) => governance.withdrawals.isWithdrawn(id, tool, tenant);
  return visible.filter(
    (tool) => !withdrawn(serverId, tool.name) && (viaGroup === null || !withdrawn(viaGroup, tool.name)),
  );
}
