import { defineOperation } from "../operation.js";
import { callerToolListing } from "../views/caller-tools.js";
import { serverRef } from "./get-server.js";

export const startServer = defineOperation({
  name: "start-server",
  kind: "command",
  summary: "Start an MCP server (a dead one at once, skipping its retry backoff) and list its tools.",
  permissions: ["mcp_servers:lifecycle"],
  input: serverRef,
  async run(services, input, ctx) {
    const { fleet, groups } = services;
    if (groups.has(input.mcp_server)) {
      const { started } = await groups.startMembers(input.mcp_server);
      const view = groups.view(input.mcp_server);
      return {
        group: view.group_id,
        state: view.state,
        members_started: started.length,
        healthy_count: view.healthy_count,
        members_in_rotation_count: view.members_in_rotation_count,
        total_members: view.total_members,
      };
    }
    const server = fleet.require(input.mcp_server);
    const tools = await fleet.start(server, true);
    // Listed as gateway_tools lists them: what the caller's policies let it see.
    const listed = (await callerToolListing(services, ctx))(server.id, null, tools);
    return { mcp_server: server.id, state: server.lifecycle.state, tools: listed.map((t) => t.name) };
  },
});
