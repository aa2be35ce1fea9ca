import { z } from "zod";
import { notFound } from "../../../domain/errors.js";
import { defineOperation } from "../../operation.js";
import { nameField, requireGovernance, tenantIdField, tenantOf } from "./governance-fields.js";

/**
 * `POST /admin/tools/{server}/{tool}/withdraw` with optional `tenant_id` (null: every tenant). The
 * tool is refused (`ToolWithdrawnError`) and absent from front-door listings for that tenant until
 * restored; the withdrawal is a runtime overlay that survives reload and restart, kept in the shared
 * store, which every replica reads (at once when this one's event reaches it). `server` is a
 * server or a group of the fleet (404 otherwise); the tool need not be known yet. Answers
 * `{withdrawn: true, mcp_server, tool, tenant_id}`.
 */
export const withdrawTool = defineOperation({
  name: "withdraw-tool",
  kind: "command",
  summary: "Withdraw a tool of a server or group, for one tenant or every tenant.",
  permissions: ["mcp_servers:lifecycle"],
  tenantAware: true,
  input: z.strictObject({ mcp_server: nameField(), tool: nameField(), tenant_id: tenantIdField }),
  async run(services, input, ctx) {
    const governance = requireGovernance(services);
    if (!services.fleet.has(input.mcp_server) && !services.groups.has(input.mcp_server))
      throw notFound(input.mcp_server);
    const tenant = tenantOf(input.tenant_id, ctx);
    await governance.withdrawals.withdraw({
      mcp_server_id: input.mcp_server,
      tool_name: input.tool,
      tenant_id: tenant,
      withdrawn_by: ctx.principal.id,
      withdrawn_at: services.clock.now() / 1000,
    });
    services.bus.publish([
      {
        type: "ToolPolicyChanged",
        mcp_server_id: input.mcp_server,
        change: "withdrawn",
        tool_name: input.tool,
        tenant_id: tenant,
      },
    ]);
    services.logger.info(
      { mcp_server_id: input.mcp_server, tool_name: input.tool, tenant_id: tenant, by: ctx.principal.id },
      "tool withdrawn",
    );
    return { withdrawn: true, mcp_server: input.mcp_server, tool: input.tool, tenant_id: tenant };
  },
});
