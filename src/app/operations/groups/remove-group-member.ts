import { z } from "zod";
import { GatewayError } from "../../../domain/errors.js";
import { defineOperation } from "../../operation.js";

export const removeGroupMember = defineOperation({
  name: "remove-group-member",
  kind: "command",
  summary: "Take a server out of a group (the server itself stays).",
  permissions: ["group:update"],
  input: z.strictObject({ group: z.string().min(1), member: z.string().min(1) }),
  async run({ groups, repositories, clock }, input) {
    if (
      !(await groups.dropMember(input.group, input.member, repositories.groupConfigs, clock.now() / 1000))
    ) {
      throw new GatewayError(
        "McpServerNotFoundError",
        `McpServer not found in group '${input.group}': ${input.member}`,
      );
    }
    return { group_id: input.group, mcp_server_id: input.member, removed: true };
  },
});
