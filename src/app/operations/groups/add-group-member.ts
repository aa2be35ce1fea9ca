import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { zodValidation } from "../../validation.js";
import { missingFields, refuseMissing } from "../missing-fields.js";

const body = z.strictObject({
  member_id: z.string().min(1),
  weight: z.number().int().min(1).max(100).default(1),
  priority: z.number().int().min(1).max(100).default(1),
});

export const addGroupMember = defineOperation({
  name: "add-group-member",
  kind: "command",
  summary: "Add a registered MCP server to a group (or change its weight and priority).",
  permissions: ["group:update"],
  input: z.strictObject({ group: z.string().min(1), body: z.record(z.string(), z.unknown()) }),
  async run({ groups, fleet, repositories, clock }, input) {
    groups.require(input.group);
    refuseMissing(missingFields(input.body, ["member_id"]));
    const parsed = body.safeParse(input.body);
    if (!parsed.success) throw zodValidation(parsed.error);
    const member = parsed.data;
    fleet.require(member.member_id);
    groups.addMember(input.group, { id: member.member_id, weight: member.weight, priority: member.priority });
    await groups.persist(input.group, repositories.groupConfigs, clock.now() / 1000);
    return { group_id: input.group, mcp_server_id: member.member_id, added: true };
  },
});
