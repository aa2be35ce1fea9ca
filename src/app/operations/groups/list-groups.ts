import { z } from "zod";
import { defineOperation } from "../../operation.js";

export const listGroups = defineOperation({
  name: "list-groups",
  kind: "query",
  summary: "Groups with their state, counts, circuit breaker and members; optionally one state only.",
  permissions: ["group:read"],
  input: z.strictObject({
    state_filter: z
      .string()
      .nullish()
      .describe("healthy, partial, inactive or degraded; another value gives []"),
  }),
  async run({ groups }, input) {
    const filter = input.state_filter ?? null;
    return { groups: groups.views().filter((group) => filter === null || group.state === filter) };
  },
});
