import { RequestRejected } from "../../../domain/errors.js";
import { defineOperation } from "../../operation.js";
import { groupRef } from "./get-group.js";

export const deleteGroup = defineOperation({
  name: "delete-group",
  kind: "command",
  summary: "Remove a group created through REST (its member servers stay). Declared groups stay.",
  permissions: ["group:delete"],
  input: groupRef,
  async run({ groups, repositories, bus }, input) {
    const group = groups.require(input.group);
    if (group.source === "config") {
      throw new RequestRejected(
        409,
        "declared_in_config",
        `Group '${input.group}' is declared in the configuration file; remove it there and reload`,
        { group_id: input.group },
      );
    }
    await repositories.groupConfigs.delete(input.group);
    groups.remove(input.group);
    bus.publish([{ type: "GroupConfigChanged", group_id: input.group, change: "deleted" }]);
    return { group_id: input.group, deleted: true };
  },
});
