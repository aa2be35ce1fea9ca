import { combinedVerdict } from "../../domain/policy/tool-policy.js";
import type { RequestContext } from "../context.js";
import { memberPolicies } from "../routing/route-call.js";
import type { AppServices } from "../services.js";
import type { ProjectedTool } from "./tool-projection.js";

type Services = Pick<AppServices, "fleet" | "groups" | "governance">;

/**
 * The projected tools one caller sees. The projection is computed for no tenant, with every layer
 * that does not depend on the caller; this pass removes what the caller's tenant policies hide and
 * what is withdrawn for the caller's tenant or for everyone.
 */
export function toolsOfferedTo(
  services: Services,
  tools: readonly ProjectedTool[],
  ctx: RequestContext,
): ProjectedTool[] {
  const { governance } = services;
  const tenant = ctx.principal.tenant_id;
  if (!governance || (governance.withdrawals.empty && !governance.hasTenantPolicies(tenant)))
    return [...tools];
  return tools.filter((projected) => offeredTo(services, projected, tenant));
}

/**
 * Whether a caller of `tenant` sees a projected tool: not withdrawn on its target, and offered by
 * its server, or for a group by at least one member, that is not dead, lists it, has it not
 * withdrawn and lets the caller's policies (every group of the member, its own, the governance
 * layers) allow it.
 */
export function offeredTo(services: Services, projected: ProjectedTool, tenant: string | null): boolean {
  const { fleet, groups, governance } = services;
  const name = projected.tool.name;
  const withdrawn = (id: string) => governance?.withdrawals.isWithdrawn(id, name, tenant) ?? false;
  if (withdrawn(projected.target)) return false;
  const servers = groups.has(projected.target) ? groups.memberIds(projected.target) : [projected.target];
  return servers.some((id) => {
    const server = fleet.get(id);
    if (!server?.tools || server.lifecycle.state === "dead") return false;
    if (!server.tools.some((tool) => tool.name === name) || withdrawn(id)) return false;
    return combinedVerdict(memberPolicies(services, id, null, true, tenant), name) !== "deny";
  });
}
