import { GatewayError } from "../../domain/errors.js";
import type { CallGate } from "../routing/call-gate.js";
import type { ToolWithdrawals } from "./tool-withdrawals.js";

/**
 * Refuses a call of a tool withdrawn at runtime (`/admin/tools/{server}/{tool}/withdraw`) for the
 * caller's tenant or for every tenant, with `ToolWithdrawnError`. A withdrawal names the server or
 * the group the caller names; one on a server also covers calls reaching it as a group member.
 */
export function withdrawnToolGate(withdrawals: ToolWithdrawals): CallGate {
  return {
    name: "tool_withdrawn",
    async check({ ctx, target, server, tool }) {
      if (withdrawals.empty) return;
      const tenant = ctx.principal.tenant_id;
      const on = [target, server.id].find((id) => withdrawals.isWithdrawn(id, tool, tenant));
      if (on === undefined) return;
      throw new GatewayError("ToolWithdrawnError", `Tool '${tool}' of '${on}' is withdrawn`, {
        mcp_server_id: on,
        tool_name: tool,
      });
    },
  };
}
