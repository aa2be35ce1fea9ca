import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { requireGovernance } from "./governance-fields.js";
import { sessionId } from "./session-fields.js";

const REASON_RULE = "must be a string of at most 1024 characters";

/**
 * `POST /sessions/{session_id}/suspend` with optional `reason`: every upstream tool call of that MCP
 * session is refused (`SessionSuspendedError`) until it is resumed. The session need not exist (it
 * may live on another replica); the suspension is kept in the shared store, which is how other
 * replicas learn of it. Answers `{session_id, suspended: true}`.
 */
export const suspendSession = defineOperation({
  name: "suspend-session",
  kind: "command",
  summary: "Suspend an MCP session: its tool calls are refused until it is resumed.",
  permissions: ["mcp_servers:lifecycle"],
  input: z.strictObject({
    session_id: z.string(),
    // An explicit null is no reason, as an absent one.
    reason: z
      .string({ error: REASON_RULE })
      .max(1024, { error: REASON_RULE })
      .nullish()
      .transform((reason) => reason ?? ""),
  }),
  async run(services, input, ctx) {
    const governance = requireGovernance(services);
    const id = sessionId(input.session_id);
    await governance.sessions.suspend({
      session_id: id,
      reason: input.reason,
      suspended_by: ctx.principal.id,
      replica: services.instance.instance_id,
      suspended_at: services.clock.now() / 1000,
    });
    services.bus.publish([
      { type: "SessionSuspended", session_id: id, reason: input.reason, suspended_by: ctx.principal.id },
    ]);
    services.logger.info(
      { session_id: id, reason: input.reason, by: ctx.principal.id },
      "MCP session suspended",
    );
    return { session_id: id, suspended: true };
  },
});
