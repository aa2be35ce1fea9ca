import { GatewayError } from "../../domain/errors.js";
import { combinedVerdict, type ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { RequestContext } from "../context.js";
import type { InvokedResult } from "../fleet/tool-invoker.js";
import type { ProgressUpdate } from "../ports/upstream.js";
import type { AppServices } from "../services.js";

export interface RouteOptions {
  callId: string;
  timeoutMs: number;
  /** Receives the upstream's progress for this call (front door). */
  onProgress?: (progress: ProgressUpdate) => void;
  /** Request parameters relayed besides name and arguments (`task`, `_meta`). */
  extraParams?: Record<string, unknown>;
  /**
   * Whether a group member is governed by every group it belongs to (front door, spec 2 "groups")
   * rather than by the group the call went through only (`gateway_call`).
   */
  everyGroup?: boolean;
  /** Told which server the call reaches, right before it is sent there. */
  onRouted?: (serverId: string) => void;
}

/** Failures that count against a group member (rotation, circuit breaker); refusals of the caller do not. */
const MEMBER_FAILURES = new Set([
  "ToolTimeoutError",
  "ToolInvocationError",
  "CannotStartMcpServerError",
  "McpServerDegradedError",
  "McpServerNotReadyError",
  "CircuitBreakerOpen",
]);

/**
 * Calls a tool on a server, or on a member of a group chosen by the group's strategy, after the
 * tool access policies; reports the outcome to the group. The one path of every upstream tool call.
 */
export async function routeCall(
  services: AppServices,
  ctx: RequestContext,
  target: string,
  tool: string,
  args: Record<string, unknown>,
  options: RouteOptions,
): Promise<InvokedResult> {
  const { fleet, groups, invoker } = services;
  const caller = { id: ctx.principal.id, tenant_id: ctx.principal.tenant_id };
  const call = {
    callId: options.callId,
    timeoutMs: options.timeoutMs,
    signal: ctx.signal,
    caller,
    onProgress: options.onProgress,
    extraParams: options.extraParams,
  };
  if (!groups.has(target)) {
    const server = fleet.require(target);
    refuseByPolicy(memberPolicies(services, server.id, null, options.everyGroup), tool, target);
    options.onRouted?.(server.id);
    return invoker.call(server, tool, args, call);
  }
  const member = groups.route(target, ctx.principal.tenant_id);
  refuseByPolicy(memberPolicies(services, member.id, target, options.everyGroup), tool, target);
  options.onRouted?.(member.id);
  try {
    const outcome = await invoker.call(member, tool, args, { ...call, group: target });
    groups.recordCall(target, member.id, true);
    return outcome;
  } catch (error) {
    if (error instanceof GatewayError && MEMBER_FAILURES.has(error.type)) {
      groups.recordCall(target, member.id, false);
    }
    throw error;
  }
}

/**
 * The policies a call to `serverId` passes: its own, those of the group it was routed through, and
 * with `everyGroup` those of every group it is a member of.
 */
export function memberPolicies(
  services: Pick<AppServices, "fleet" | "groups">,
  serverId: string,
  viaGroup: string | null,
  everyGroup = false,
): (ToolPolicy | undefined)[] {
  const { fleet, groups } = services;
  const own = fleet.get(serverId)?.spec.tool_policy;
  const governing = everyGroup ? groups.groupsOf(serverId) : viaGroup ? [viaGroup] : [];
  return [...governing.flatMap((group) => groups.policiesFor(group, serverId)), own];
}

/**
 * Tool access policies, checked before the upstream is touched. A tool on an `approval_list` is
 * refused too: human approval holds are not served yet, and refusing is the safe side.
 */
function refuseByPolicy(policies: readonly (ToolPolicy | undefined)[], tool: string, target: string): void {
  const verdict = combinedVerdict(policies, tool);
  if (verdict === "allow") return;
  const reason = verdict === "deny" ? "denied" : "approval_required";
  throw new GatewayError(
    "ToolAccessDeniedError",
    verdict === "deny"
      ? "Tool not available for this mcp_server"
      : `Tool '${tool}' needs a human approval, and approval holds are not served yet`,
    { mcp_server_id: target, tool_name: tool, reason },
  );
}
