import { defineOperation } from "../../operation.js";
import { serverRef } from "../get-server.js";
import { noL7Policy } from "./no-l7-policy.js";

/**
 * `DELETE /mcp_servers/{id}/l7_policy`: clears the policy; calls to the server are no longer
 * evaluated. Answers `{mcp_server_id, deleted: true}`; 404 `no_l7_policy` when it had none. A policy
 * still stored under the id of a removed server can be cleared too.
 */
export const deleteL7Policy = defineOperation({
  name: "delete-l7-policy",
  kind: "command",
  summary: "Remove the L7 egress policy of an MCP server.",
  permissions: ["policy:write"],
  input: serverRef,
  async run(services, input, ctx) {
    const id = input.mcp_server;
    if (!(await services.egressPolicies.detach(id, ctx.principal.id))) throw noL7Policy(services, id);
    return { mcp_server_id: id, deleted: true };
  },
});
