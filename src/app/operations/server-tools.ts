import { z } from "zod";
import { defineOperation } from "../operation.js";
import { toolView } from "../views/server-views.js";

export const serverTools = defineOperation({
  name: "server-tools",
  kind: "query",
  summary: "Tools of one MCP server with their digests; may start a cold server (never a dead one).",
  permissions: ["mcp_servers:read"],
  input: z.object({
    mcp_server: z.string().min(1).describe("MCP server id"),
    start: z.boolean().default(false).describe("Start a cold server to learn its tools"),
  }),
  async run({ fleet }, input) {
    const server = fleet.require(input.mcp_server);
    const tools = await fleet.tools(server, input.start);
    return {
      mcp_server: server.id,
      state: server.lifecycle.state,
      predefined: (server.spec.predefined_tools?.length ?? 0) > 0,
      tools: tools.map(toolView),
    };
  },
});
