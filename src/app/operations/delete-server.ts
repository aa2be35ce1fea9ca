import { RequestRejected } from "../../domain/errors.js";
import { defineOperation } from "../operation.js";
import { serverRef } from "./get-server.js";

export const deleteServer = defineOperation({
  name: "delete-server",
  kind: "command",
  summary:
    "Remove a server registered at runtime, stopping it first and taking it out of its groups. Declared servers stay.",
  permissions: ["mcp_servers:write", "mcp_servers:lifecycle"],
  input: serverRef,
  async run({ fleet, groups, settings, repositories, clock }, input) {
    return fleet.exclusive(input.mcp_server, async () => {
      const server = fleet.require(input.mcp_server);
      if (settings.declaredServerIds.has(server.id)) {
        throw new RequestRejected(
          409,
          "declared_in_config",
          `MCP server '${server.id}' is declared in the configuration file; remove it there and reload`,
          { mcp_server_id: server.id },
        );
      }
      await repositories.serverConfigs.delete(server.id);
      await fleet.remove(server.id);
      // A new server may take the id: the deleted one's block goes with it.
      await repositories.blockedServers.remove(server.id);
      fleet.forgetBlock(server.id);
      // A server that no longer exists is no group's member either (no member left `dead` in rotation).
      for (const group of groups.groupsOf(server.id)) {
        await groups.dropMember(group, server.id, repositories.groupConfigs, clock.now() / 1000);
      }
      return { mcp_server_id: server.id, deleted: true };
    });
  },
});
