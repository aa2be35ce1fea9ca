import { GatewayError } from "../../domain/errors.js";
import type { CallGate } from "../routing/call-gate.js";
import type { SessionSuspensions } from "./session-suspensions.js";

/**
 * Refuses every upstream tool call of a suspended MCP session (`POST /sessions/{id}/suspend`) with
 * `SessionSuspendedError`, until it is resumed. Requests outside an MCP session pass.
 */
export function suspendedSessionGate(sessions: SessionSuspensions): CallGate {
  return {
    name: "suspended_session",
    async check({ ctx }) {
      const sessionId = ctx.sessionId;
      if (sessionId === undefined) return;
      const reading = sessions.fresh();
      if (reading) await reading;
      if (!sessions.isSuspended(sessionId)) return;
      throw new GatewayError("SessionSuspendedError", `Session '${sessionId}' is suspended`, {
        session_id: sessionId,
      });
    },
  };
}
