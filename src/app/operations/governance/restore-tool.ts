import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { nameField, requireGovernance, tenantIdField, tenantOf } from "./governance-fields.js";

/**
 * `POST /admin/tools/{server}/{tool}/restore` with optional `tenant_id`. With a tenant it lifts that
 * tenant's withdrawal (a withdrawal for every tenant stays); with null it removes the tool's whole
 * runtime entry. Withdrawals declared in the configuration are not touched. Answers
 * `{restored, mcp_server, tool, tenant_id}`, `restored` false when there was nothing to lift. The
 * server need not exist any more: entries outlive a reload that removed it.
 */
export const restoreTool = defineOperation({
  name: "restore-tool",
  kind: "command",
  summary: "Restore a withdrawn tool, for one tenant or every tenant.",
  permissions: ["mcp_servers:lifecycle"],
  tenantAware: true,
  input: z.strictObject({ mcp_server: nameField(), tool: nameField(), tenant_id: tenantIdField }),
  async run(services, input, ctx) {
    const governance = requireGovernance(services);
    const tenant = tenantOf(input.tenant_id, ctx);
    const restored = await governance.withdrawals.restore(input.mcp_server, input.tool, tenant);
    if (restored) {
      services.bus.publish([
        {
          type: "ToolPolicyChanged",
          mcp_server_id: input.mcp_server,
          change: "restored",
          tool_name: input.tool,
          tenant_id: tenant,
        },
      ]);
    }
    services.logger.info(
      {
        mcp_server_id: input.mcp_server,
        tool_name: input.tool,
        tenant_id: tenant,
        restored,
        by: ctx.principal.id,
      },
      "tool restored",
    );
    return { restored, mcp_server: input.mcp_server, tool: input.tool, tenant_id: tenant };
  },
});
