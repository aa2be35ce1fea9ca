import { z } from "zod";
import { defineOperation } from "../operation.js";
import { callerToolListing } from "../views/caller-tools.js";

export const listTools = defineOperation({
  name: "list-tools",
  kind: "query",
  summary: "Every known tool of every server; servers whose tools are not known yet are left out.",
  permissions: ["tool:list"],
  input: z.strictObject({}),
  async run(services, _input, ctx) {
    const { fleet, pins } = services;
    const listed = await callerToolListing(services, ctx);
    const tools = fleet.list().flatMap((server) =>
      listed(server.id, null, server.tools ?? []).map((tool) => {
        // Spec 1 "Tool": only a pin for every caller is shown, never a per-tenant one.
        const pinned = pins?.pinnedDigest(server.id, tool.name);
        return {
          mcp_server_id: server.id,
          tool_name: tool.name,
          description: tool.description ?? "",
          // Spec 1 §2: the schema rendered as text, not a JSON object.
          input_schema: JSON.stringify(tool.inputSchema),
          digest: tool.digest,
          ...(pinned !== undefined && { pinned_digest: pinned }),
        };
      }),
    );
    return { tools };
  },
});
