import { GatewayError } from "../../domain/errors.js";
import { combinedVerdict, type ToolPolicy } from "../../domain/policy/tool-policy.js";
import { DENIALS } from "../audit-recorder.js";
import type { RequestContext } from "../context.js";
import type { InvokedResult } from "../fleet/tool-invoker.js";
import { ConnectionLostFailure } from "../fleet/upstream-failure.js";
import { NOOP_TRACER, type ToolCallSpan } from "../ports/tracer.js";
import type { AskClient, ProgressUpdate } from "../ports/upstream.js";
import type { AppServices } from "../services.js";
import type { GatedCall } from "./call-gate.js";

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
  /**
   * The caller's W3C trace context as it came besides the request (the front door's `traceparent`
   * and `tracestate` HTTP headers); a `traceparent` in `_meta` wins over it.
   */
  traceParent?: Readonly<Record<string, string>> | undefined;
  /** See `CallOptions.clientCapabilities`. */
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /** See `CallOptions.askClient`. */
  askClient?: AskClient | undefined;
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
  const span = (services.tracer ?? NOOP_TRACER).startToolCall({
    target,
    tool,
    callId: options.callId,
    caller: { id: ctx.principal.id, tenantId: ctx.principal.tenant_id, sessionId: ctx.sessionId },
    parent: parentOf(options),
  });
  try {
    const outcome = await route(services, ctx, target, tool, args, options, span);
    span.end("success", { toolError: outcome.result.isError === true });
    return outcome;
  } catch (error) {
    // Refusals (policy, approval, gates) end the span as errors too, with the audit's status word.
    const errorType = error instanceof GatewayError ? error.type : "InternalError";
    span.end(DENIALS.has(errorType) ? "denied" : "failure", { errorType });
    throw error;
  }
}

/** Where the caller's trace context is: `_meta` when it names a parent, else what came beside it. */
function parentOf(options: RouteOptions): Readonly<Record<string, unknown>> | undefined {
  const meta = metaOf(options.extraParams);
  if (meta?.traceparent !== undefined) return meta;
  return options.traceParent ?? meta;
}

/** The `_meta` object of relayed request parameters, if any. */
function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

async function route(
  services: AppServices,
  ctx: RequestContext,
  target: string,
  tool: string,
  args: Record<string, unknown>,
  options: RouteOptions,
  span: ToolCallSpan,
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
    traceContext: span.traceContext,
    clientCapabilities: options.clientCapabilities,
    askClient: options.askClient,
  };
  // The caller's deadline: an approval hold stops waiting then (spec 1 "Approval": the batch deadline).
  const deadline = services.clock.now() + options.timeoutMs;
  if (!groups.has(target)) {
    const server = fleet.require(target);
    await admit(
      services,
      { ctx, target, group: null, server, tool, args, callId: options.callId, deadline },
      options,
    );
    span.routed(server.id);
    options.onRouted?.(server.id);
    return invoker.call(server, tool, args, call);
  }
  // Only members whose policies allow the tool are picked, when any is: members of one group may
  // carry different policies of their own (or, on the front door, belong to different groups).
  const tenant = ctx.principal.tenant_id;
  const member = groups.route(
    target,
    tenant,
    (id) =>
      combinedVerdict(memberPolicies(services, id, target, options.everyGroup, tenant), tool) !== "deny",
  );
  // Counted at the member until the invoker takes the call (it counts it from then on, before any
  // wait), so calls routed at once see each other.
  member.admitting++;
  try {
    await admit(
      services,
      { ctx, target, group: target, server: member, tool, args, callId: options.callId, deadline },
      options,
    );
  } finally {
    member.admitting--;
  }
  span.routed(member.id);
  options.onRouted?.(member.id);
  try {
    const outcome = await invoker.call(member, tool, args, { ...call, group: target });
    groups.recordCall(target, member.id, true);
    return outcome;
  } catch (error) {
    if (error instanceof GatewayError && MEMBER_FAILURES.has(error.type)) {
      // A call lost with its connection is a failed call for the circuit; the member's own failure
      // is its crash, counted when the connection ended (one failure, not two).
      if (error instanceof ConnectionLostFailure) groups.recordLostCall(target);
      else groups.recordCall(target, member.id, false);
    }
    throw error;
  }
}

/**
 * The tool access policies, then every gate in order, then the hold of an `approval_list` match: a
 * call a gate refuses anyway (a suspended session, a withdrawn tool, an oversized payload) never
 * asks a human. A refusal is recorded as a refused invocation (its audit record reads `denied` for
 * the caller's refusals) before it reaches the caller.
 */
async function admit(services: AppServices, call: GatedCall, options: RouteOptions): Promise<void> {
  try {
    const reading = services.governance?.fresh();
    if (reading) await reading;
    const policies = memberPolicies(
      services,
      call.server.id,
      call.group,
      options.everyGroup,
      call.ctx.principal.tenant_id,
    );
    const verdict = combinedVerdict(policies, call.tool);
    if (verdict === "deny") throw refusal(call, "denied");
    if (verdict === "approval" && !services.approvals) throw refusal(call, "approval_required");
    for (const gate of services.callGates ?? []) await gate.check(call);
    if (verdict === "approval") await services.approvals?.hold(call, { source: "approval_list" });
  } catch (error) {
    if (error instanceof GatewayError) {
      services.invoker.recordRefusal(
        call.server,
        call.tool,
        {
          callId: call.callId,
          timeoutMs: 0,
          caller: { id: call.ctx.principal.id, tenant_id: call.ctx.principal.tenant_id },
          ...(call.group !== null && { group: call.group }),
        },
        error,
      );
    }
    throw error;
  }
}

/**
 * The one place that computes the tool policies over a call to `serverId`: its own, those of the
 * group it was routed through (with `everyGroup`, of every group it is a member of, as on the front
 * door), and the governance layers (`governance/governance.ts`): policies stored through
 * `/auth/policies`, the agent-pushed policy and, for a caller of `tenant`, `tool_access.member.<tenant>`
 * (global and the server's own). Any deny among them denies (`combinedVerdict`).
 */
export function memberPolicies(
  services: Pick<AppServices, "fleet" | "groups" | "governance">,
  serverId: string,
  viaGroup: string | null,
  everyGroup = false,
  tenant: string | null = null,
): (ToolPolicy | undefined)[] {
  const { fleet, groups, governance } = services;
  const governing = everyGroup ? groups.groupsOf(serverId) : viaGroup ? [viaGroup] : NO_GROUPS;
  // Built in place: this runs on every tool call, once more for a stateless one.
  const policies: (ToolPolicy | undefined)[] = [];
  for (const group of governing) policies.push(...groups.policiesFor(group, serverId));
  policies.push(fleet.get(serverId)?.spec.tool_policy);
  governance?.addPoliciesOver(policies, serverId, governing, tenant);
  return policies;
}

const NO_GROUPS: readonly string[] = Object.freeze([]);

/** A refusal by the tool access policies (`approval_required`: a hold is needed and no gate serves it). */
function refusal(call: GatedCall, reason: "denied" | "approval_required"): GatewayError {
  return new GatewayError(
    "ToolAccessDeniedError",
    reason === "denied"
      ? "Tool not available for this mcp_server"
      : `Tool '${call.tool}' needs a human approval, and no approval gate is configured`,
    { mcp_server_id: call.target, tool_name: call.tool, reason },
  );
}
