import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { groupStrategy } from "./group-fields.js";

export const updateGroup = defineOperation({
  name: "update-group",
  kind: "command",
  summary: "Change a group's strategy, min_healthy or description.",
  permissions: ["group:update"],
  input: z.strictObject({
    group: z.string().min(1),
    strategy: groupStrategy.optional(),
    min_healthy: z.number().int().min(1).optional(),
    description: z.string().optional(),
  }),
  async run({ groups, repositories, clock }, input) {
    const { group, ...patch } = input;
    groups.require(group);
    groups.updateSettings(
      group,
      Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)),
    );
    await groups.persist(group, repositories.groupConfigs, clock.now() / 1000);
    return { group_id: group, updated: true };
  },
});
