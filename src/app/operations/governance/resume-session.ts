import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { requireGovernance } from "./governance-fields.js";
import { sessionId } from "./session-fields.js";

/**
 * `DELETE /sessions/{session_id}/suspend`: the session's tool calls pass again. Answers
 * `{session_id, suspended: false}`, also when it was not suspended.
 */
export const resumeSession = defineOperation({
  name: "resume-session",
  kind: "command",
  summary: "Resume a suspended MCP session.",
  permissions: ["mcp_servers:lifecycle"],
  input: z.strictObject({ session_id: z.string() }),
  async run(services, input, ctx) {
    const governance = requireGovernance(services);
    const id = sessionId(input.session_id);
    const resumed = await governance.sessions.resume(id);
    if (resumed) {
      services.bus.publish([{ type: "SessionResumed", session_id: id, resumed_by: ctx.principal.id }]);
      services.logger.info({ session_id: id, by: ctx.principal.id }, "MCP session resumed");
    }
    return { session_id: id, suspended: false };
  },
});
