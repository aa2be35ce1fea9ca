import { z } from "zod";
import { defineOperation } from "../../operation.js";

/**
 * `POST` or `PUT /mcp_servers/{id}/l7_policy` (identical): attaches the policy document, replacing
 * any policy the server had. Answers `{mcp_server_id, attached: true, replaced, policy}` with the
 * compiled policy as GET reads it. An invalid document is a `ValidationError` naming the field and
 * its rule (an unknown secret pattern group is named), and changes nothing.
 */
export const setL7Policy = defineOperation({
  name: "set-l7-policy",
  kind: "command",
  summary: "Attach or replace the L7 egress policy of an MCP server.",
  permissions: ["policy:write"],
  input: z.strictObject({
    mcp_server: z.string().min(1).describe("MCP server id"),
    policy: z.unknown().describe("The policy document: tools, headers, arguments, defaultAction, mode"),
  }),
  async run({ fleet, egressPolicies }, input, ctx) {
    const server = fleet.require(input.mcp_server);
    const { attached, replaced } = await egressPolicies.attach(server.id, input.policy, ctx.principal.id);
    return { mcp_server_id: server.id, attached: true, replaced, policy: egressPolicies.view(attached) };
  },
});
