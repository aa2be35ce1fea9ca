import { defineOperation } from "../../operation.js";
import { serverRef } from "../get-server.js";
import { noL7Policy } from "./no-l7-policy.js";

/**
 * `GET /mcp_servers/{id}/l7_policy`: the compiled policy with its `policyId` and every section
 * filled in, as stored (so as every replica applies it). A server without a policy: 404
 * `no_l7_policy`; an unknown server: `McpServerNotFoundError`, unless a policy is still stored under
 * its id (a policy outlives its server, and applies again to a server registered under that id).
 */
export const getL7Policy = defineOperation({
  name: "get-l7-policy",
  kind: "query",
  summary: "Read the L7 egress policy of an MCP server.",
  permissions: ["policy:read"],
  input: serverRef,
  async run(services, input) {
    const attached = await services.egressPolicies.read(input.mcp_server);
    if (!attached) throw noL7Policy(services, input.mcp_server);
    return services.egressPolicies.view(attached);
  },
});
