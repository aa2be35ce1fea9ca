import { z } from "zod";
import { visibleTools } from "../../domain/policy/tool-policy.js";
import { defineOperation } from "../operation.js";

export const listTools = defineOperation({
  name: "list-tools",
  kind: "query",
  summary: "Every known tool of every server; servers whose tools are not known yet are left out.",
  permissions: ["tool:list"],
  input: z.object({}),
  async run({ fleet }) {
    const tools = fleet.list().flatMap((server) =>
      visibleTools(server.tools ?? [], [server.spec.tool_policy]).map((tool) => ({
        mcp_server_id: server.id,
        tool_name: tool.name,
        description: tool.description ?? "",
        // Spec 1 §2: the schema rendered as text, not a JSON object.
        input_schema: JSON.stringify(tool.inputSchema),
        digest: tool.digest,
      })),
    );
    return { tools };
  },
});
