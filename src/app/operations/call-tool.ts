import { GatewayError } from "../../domain/errors.js";
import { defineOperation } from "../operation.js";
import type { ToolCallResult } from "../ports/upstream.js";
import { routeCall } from "../routing/route-call.js";
import {
  callSpec,
  clampTimeout,
  invokeRefusal,
  MAX_CALL_RESULT_BYTES,
  recordCallRefusal,
} from "./call-tools.js";

/** Seconds a call may take when it names none: gateway_call's default (decisions "gateway_call"). */
const DEFAULT_TIMEOUT_S = 60;

/**
 * One tool call over REST (`POST /api/tools/call`): one of `gateway_call`'s calls, on the same path
 * (`routeCall`: tool policies, gates, approval holds, group routing, audit) with the same
 * admission (`tool:invoke`, checked for the call's server when granted per server). An approval
 * hold waits for the decision within the call's timeout, as it does in a batch. The answer is the
 * tool's result as the upstream gave it (an `isError` result included); a refusal or failure is
 * the catalogue's error, not a batch outcome. No retries and no truncation: one call, one answer.
 */
export const callTool = defineOperation({
  name: "call-tool",
  kind: "command",
  summary: "Call one tool of an upstream server or group, answering the tool's result.",
  permissions: ["tool:invoke"],
  checkedPerResource: true,
  input: callSpec,
  recordRefusal(services, input, ctx, error) {
    recordCallRefusal(services, ctx, input, error);
  },
  async run(services, input, ctx): Promise<ToolCallResult> {
    const callId = services.ids.uuid();
    const refused = ctx.perResource ? await invokeRefusal(services, ctx, input, callId) : null;
    if (refused) throw refused;
    const timeoutS = clampTimeout(input.timeout ?? DEFAULT_TIMEOUT_S);
    const { result, sizeBytes } = await routeCall(
      services,
      ctx,
      input.mcp_server,
      input.tool,
      input.arguments,
      {
        callId,
        timeoutMs: timeoutS * 1000,
      },
    );
    if (sizeBytes > MAX_CALL_RESULT_BYTES) {
      throw new GatewayError(
        "ResponseTooLarge",
        `result of ${sizeBytes} bytes exceeds ${MAX_CALL_RESULT_BYTES} bytes`,
      );
    }
    return result;
  },
});
