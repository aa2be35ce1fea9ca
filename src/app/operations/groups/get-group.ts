import { z } from "zod";
import { defineOperation } from "../../operation.js";

export const groupRef = z.strictObject({ group: z.string().min(1).describe("Group id") });

export const getGroup = defineOperation({
  name: "get-group",
  kind: "query",
  summary: "One group object.",
  permissions: ["group:read"],
  input: groupRef,
  async run({ groups }, input) {
    return groups.view(input.group);
  },
});
