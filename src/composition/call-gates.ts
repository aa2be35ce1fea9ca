import type { EgressPolicyGate } from "../app/egress/egress-policy-gate.js";
import type { Governance } from "../app/governance/governance.js";
import { payloadSizeGate } from "../app/governance/payload-size-gate.js";
import { suspendedSessionGate } from "../app/governance/suspended-session-gate.js";
import { withdrawnToolGate } from "../app/governance/withdrawn-tool-gate.js";
import type { CallGate } from "../app/routing/call-gate.js";

/** What the gates are built from besides the configuration. */
export interface CallGateDeps {
  governance: Governance;
  /** The L7 egress policies of the servers (`app/egress/egress-policy-gate.ts`). */
  egressPolicy: EgressPolicyGate;
  /** The `tool_projection` digest pins (`app/pins/digest-pin-gate.ts`). */
  digestPins: CallGate;
  /** Tools withheld by `header_exposure` (`app/headers/header-exposure.ts`). */
  headerExposure: CallGate;
}

/**
 * The checks every upstream tool call passes right before it is sent (`app/routing/call-gate.ts`),
 * in the order they run: the first refusal wins and is recorded. Cheap refusals of the caller come
 * first; anything that may wait or reach the network comes after them. A hold of an `approval_list`
 * match runs after every gate (`route-call.ts`), so a call refused here never asks a human.
 */
export function createCallGates(deps: CallGateDeps): CallGate[] {
  const { governance } = deps;
  return [
    // A suspended MCP session (`/sessions/{id}/suspend`): SessionSuspendedError.
    suspendedSessionGate(governance.sessions),
    // A tool withdrawn at runtime for the caller's tenant or everyone: ToolWithdrawnError.
    withdrawnToolGate(governance.withdrawals),
    // A tool `header_exposure` withholds answers like an unknown one: ToolNotFoundError (-32601).
    deps.headerExposure,
    // `interceptors.validators` (payload_size), read at each call so a reload applies: ValidatorDenied.
    payloadSizeGate(() => governance.settings.validators),
    // `tool_projection` pins: ToolDigestMismatchError. May start a cold pinned server to list its tools,
    // so it runs after the cheap refusals, and before any hold so a drifted tool never asks a human.
    deps.digestPins,
    // The called server's L7 egress policy: EgressPolicyDeniedError, or a hold for requireApproval.
    deps.egressPolicy,
  ];
}
