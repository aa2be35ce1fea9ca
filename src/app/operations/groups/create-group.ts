import { z } from "zod";
import { validationError } from "../../../domain/errors.js";
import { SERVER_ID_CHARS, SERVER_ID_PATTERN } from "../../../domain/server/server-id.js";
import { defineOperation } from "../../operation.js";
import { zodValidation } from "../../validation.js";
import { missingFields, refuseMissing } from "../missing-fields.js";
import { groupStrategy } from "./group-fields.js";

const body = z.strictObject({
  // Groups share the servers' namespace, and their id rule.
  group_id: z.string().regex(SERVER_ID_PATTERN, SERVER_ID_CHARS),
  strategy: groupStrategy.default("round_robin"),
  min_healthy: z.number().int().min(1).default(1),
  description: z.string().optional(),
});

export const createGroup = defineOperation({
  name: "create-group",
  kind: "command",
  summary: "Create an empty group (members are added with add-group-member). Kept in the durable store.",
  permissions: ["group:create"],
  input: z.record(z.string(), z.unknown()),
  async run({ groups, fleet, repositories, clock }, raw) {
    refuseMissing(missingFields(raw, ["group_id"]));
    const parsed = body.safeParse(raw);
    if (!parsed.success) throw zodValidation(parsed.error);
    const input = parsed.data;
    if (groups.has(input.group_id) || fleet.has(input.group_id)) {
      throw validationError(`Group already exists: ${input.group_id}`, { field: "group_id" });
    }
    groups.register(
      {
        group_id: input.group_id,
        strategy: input.strategy,
        min_healthy: input.min_healthy,
        description: input.description ?? null,
        members: [],
      },
      "api",
      false,
    );
    await groups.persist(input.group_id, repositories.groupConfigs, clock.now() / 1000);
    return { group_id: input.group_id, created: true };
  },
});
