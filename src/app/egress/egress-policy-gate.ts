import { type EgressVerdict, evaluateEgress } from "../../domain/egress/evaluate.js";
import type { L7Policy } from "../../domain/egress/l7-policy.js";
import { paramHeaders } from "../../domain/egress/param-headers.js";
import { GatewayError } from "../../domain/errors.js";
import type { EventBus } from "../event-bus.js";
import type { Fleet } from "../fleet/fleet.js";
import type { ApprovalHolds } from "../ports/approval-holds.js";
import type { CallGate, GatedCall } from "../routing/call-gate.js";
import type { AttachedPolicy, EgressPolicies } from "./egress-policies.js";

/**
 * Applies the L7 egress policy of the server a call reaches, immediately before the upstream call
 * (spec 1 "L7 egress policy"). Every verdict is published as `EgressPolicyEnforced`. In `Audit` mode
 * nothing is refused or held. In `Enforce` mode a deny refuses with `EgressPolicyDeniedError`, and a
 * `requireApproval` verdict holds the call for a human decision, or, with no approval gate, refuses
 * with `EgressPolicyApprovalRequiredError`. Refusals and events name rules and secret pattern
 * groups, never an argument's value.
 */
export class EgressPolicyGate implements CallGate {
  readonly name = "l7_policy";

  constructor(
    private readonly deps: {
      policies: EgressPolicies;
      fleet: Pick<Fleet, "tools">;
      bus: EventBus;
      /** Read at each hold: the approval gate may be wired after the gates. */
      approvals: () => ApprovalHolds | undefined;
    },
  ) {}

  async check(call: GatedCall): Promise<void> {
    const { policies, bus } = this.deps;
    const reading = policies.fresh();
    if (reading) await reading;
    const attached = policies.policyOf(call.server.id);
    if (!attached) return;
    const { policy } = attached;
    const headers = hasHeaderRules(policy)
      ? paramHeaders(await this.inputSchemaOf(call), call.args)
      : new Map<string, string>();
    const verdict = evaluateEgress(policy, { tool: call.tool, args: call.args, paramHeaders: headers });
    const enforced = policy.mode === "Enforce";
    bus.publish([
      {
        type: "EgressPolicyEnforced",
        mcp_server_id: call.server.id,
        ...(call.group !== null && { group_id: call.group }),
        tool_name: call.tool,
        call_id: call.callId,
        requested_by: call.ctx.principal.id,
        tenant_id: call.ctx.principal.tenant_id,
        policy_id: attached.policyId,
        mode: policy.mode,
        verdict: verdict.action,
        enforced,
        decided_by: verdict.decidedBy,
        reasons: [...verdict.reasons],
        secret_groups: [...verdict.secretGroups],
        payload_bytes: verdict.payloadBytes,
      },
    ]);
    if (!enforced || verdict.action === "allow") return;
    if (verdict.action === "deny") throw denied(call, attached, verdict);
    const approvals = this.deps.approvals();
    if (!approvals) throw approvalRequired(call, attached, verdict);
    await approvals.hold(call, { source: "l7_policy", rule: verdict.decidedBy });
  }

  /**
   * The called tool's input schema, for its `Mcp-Param-*` headers. A server whose tools are not known
   * yet is started here, as the call itself would start it; a dead one is not (the call fails anyway).
   */
  private async inputSchemaOf(call: GatedCall): Promise<unknown> {
    const { server } = call;
    const tools =
      server.tools ?? (server.lifecycle.state === "dead" ? [] : await this.deps.fleet.tools(server, true));
    return tools.find((tool) => tool.name === call.tool)?.inputSchema;
  }
}

function hasHeaderRules(policy: L7Policy): boolean {
  const { allow, deny, requireApproval } = policy.headers;
  return allow.length + deny.length + requireApproval.length > 0;
}

function details(call: GatedCall, attached: AttachedPolicy, verdict: EgressVerdict): Record<string, unknown> {
  return {
    mcp_server_id: call.server.id,
    ...(call.group !== null && { group_id: call.group }),
    tool_name: call.tool,
    policy_id: attached.policyId,
    decided_by: verdict.decidedBy,
    reasons: [...verdict.reasons],
    secret_groups: [...verdict.secretGroups],
  };
}

function denied(call: GatedCall, attached: AttachedPolicy, verdict: EgressVerdict): GatewayError {
  return new GatewayError(
    "EgressPolicyDeniedError",
    `The egress policy of MCP server '${call.server.id}' denied tool '${call.tool}': ${verdict.reason}`,
    details(call, attached, verdict),
  );
}

function approvalRequired(call: GatedCall, attached: AttachedPolicy, verdict: EgressVerdict): GatewayError {
  return new GatewayError(
    "EgressPolicyApprovalRequiredError",
    `Tool '${call.tool}' of MCP server '${call.server.id}' needs a human approval under its egress policy ` +
      `(${verdict.decidedBy}), and no approval gate is configured`,
    details(call, attached, verdict),
  );
}
