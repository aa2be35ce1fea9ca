import type { RequestContext } from "../context.js";
import type { ManagedServer } from "../fleet/managed-server.js";

/** One upstream tool call about to be sent, as the gates see it. */
export interface GatedCall {
  readonly ctx: RequestContext;
  /** The server or group the caller named. */
  readonly target: string;
  /** The group the call was routed through, or null. */
  readonly group: string | null;
  /** The server that will receive the call (the chosen member for a group). */
  readonly server: ManagedServer;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly callId: string;
  /**
   * When the caller's call times out (epoch milliseconds): a gate that waits (an approval hold)
   * stops waiting then. Absent: no deadline beyond the gate's own.
   */
  readonly deadline?: number;
}

/**
 * A check every upstream tool call passes after routing and the tool access policies, right before
 * the upstream is called: withdrawals, digest pins, payload validators, the L7 egress policy,
 * approval holds. A gate refuses by throwing a `GatewayError` (recorded as a refused invocation);
 * it may wait (an approval hold) and it must not change the call.
 */
export interface CallGate {
  readonly name: string;
  check(call: GatedCall): Promise<void>;
}
