import { visibleTools } from "../../domain/policy/tool-policy.js";
import type { RequestContext } from "../context.js";
import type { ToolInfo } from "../fleet/managed-server.js";
import { memberPolicies } from "../routing/route-call.js";
import type { AppServices } from "../services.js";

/** The tools of one server a caller sees: `viaGroup` names the group it is listed through, if any. */
export type CallerToolFilter = <T extends { name: string }>(
  serverId: string,
  viaGroup: string | null,
  tools: readonly T[],
) => T[];

/**
 * How a caller sees servers' tools in the operator views (`gateway_tools`, `gateway_details`,
 * `GET /api/tools/`): the ones every policy over the server lets this caller call, or hold for
 * approval (a group's when listed through it, the server's own, and the stored, tenant and agent
 * policies), and that no withdrawal hides from the caller's tenant, on the server or on the group.
 * The same verdict the call path reaches (spec 2 §4: listings with access filtering). The shared
 * governance copies are read fresh once, here; the filter then answers from memory for any number
 * of servers.
 */
export async function callerToolFilter(
  services: Pick<AppServices, "fleet" | "groups" | "governance">,
  ctx: RequestContext,
): Promise<CallerToolFilter> {
  const { governance } = services;
  const reading = governance?.fresh();
  if (reading) await reading;
  const tenant = ctx.principal.tenant_id;
  const withdrawn = (id: string, tool: string) =>
    governance?.withdrawals.isWithdrawn(id, tool, tenant) ?? false;
  return (serverId, viaGroup, tools) => {
    const visible = visibleTools(tools, memberPolicies(services, serverId, viaGroup, false, tenant));
    if (!governance || governance.withdrawals.empty) return visible;
    return visible.filter(
      (tool) => !withdrawn(serverId, tool.name) && (viaGroup === null || !withdrawn(viaGroup, tool.name)),
    );
  };
}

/** The tools of one server a caller is shown, as {@link callerToolListing} decides. */
export type CallerToolListing = <T extends Pick<ToolInfo, "name" | "inputSchema" | "digest">>(
  serverId: string,
  viaGroup: string | null,
  tools: readonly T[],
) => T[];

/**
 * The tools of a server a caller is shown in a listing (`gateway_tools`, `gateway_start`, a server's
 * `tools_count`, `GET /api/tools/`): what {@link callerToolFilter} lets it see, less the tools
 * `header_exposure` withholds from everyone.
 */
export async function callerToolListing(
  services: Pick<AppServices, "fleet" | "groups" | "governance" | "headerExposure">,
  ctx: RequestContext,
): Promise<CallerToolListing> {
  const visibleTo = await callerToolFilter(services, ctx);
  const { headerExposure } = services;
  return (serverId, viaGroup, tools) => {
    const visible = visibleTo(serverId, viaGroup, tools);
    return headerExposure ? visible.filter((tool) => !headerExposure.withholds(serverId, tool)) : visible;
  };
}
