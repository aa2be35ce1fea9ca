import { z } from "zod";
import { GatewayError } from "../../domain/errors.js";
import { defineOperation } from "../operation.js";
import { callerToolListing } from "../views/caller-tools.js";
import { toolView } from "../views/server-views.js";

export const serverTools = defineOperation({
  name: "server-tools",
  kind: "query",
  summary: "Tools of one MCP server with their digests; may start a cold server (never a dead one).",
  permissions: ["mcp_servers:read"],
  input: z.strictObject({
    mcp_server: z.string().min(1).describe("MCP server id"),
    start: z.boolean().default(false).describe("Start a cold server to learn its tools"),
  }),
  async run(services, input, ctx) {
    const { fleet, groups, pins } = services;
    const listed = await callerToolListing(services, ctx);
    if (groups.has(input.mcp_server)) {
      let member: ReturnType<typeof groups.route>;
      try {
        member = groups.route(input.mcp_server, null);
      } catch {
        throw new GatewayError("NoAvailableMemberError", `no_healthy_members_in_group: ${input.mcp_server}`);
      }
      const tools = await fleet.tools(member, input.start);
      return {
        mcp_server: input.mcp_server,
        state: groups.view(input.mcp_server).state,
        group: true,
        tools: listed(member.id, input.mcp_server, tools).map((tool) =>
          toolView(tool, (name) => pins?.pinnedDigest(member.id, name)),
        ),
      };
    }
    const server = fleet.require(input.mcp_server);
    const tools = await fleet.tools(server, input.start);
    return {
      mcp_server: server.id,
      state: server.lifecycle.state,
      predefined: (server.spec.predefined_tools?.length ?? 0) > 0,
      tools: listed(server.id, null, tools).map((tool) =>
        toolView(tool, (name) => pins?.pinnedDigest(server.id, name)),
      ),
    };
  },
});
