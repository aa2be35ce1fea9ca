import { defineOperation } from "../../operation.js";
import { groupRef } from "./get-group.js";

export const rebalanceGroup = defineOperation({
  name: "rebalance-group",
  kind: "command",
  summary:
    "Re-check member health and rotation; closes the circuit when min_healthy members are in rotation.",
  permissions: ["group:update"],
  input: groupRef,
  async run({ groups }, input) {
    const view = await groups.rebalance(input.group);
    return {
      status: "rebalanced" as const,
      group_id: view.group_id,
      healthy_count: view.healthy_count,
      members_in_rotation_count: view.members_in_rotation_count,
      total_members: view.total_members,
      circuit_open: view.circuit_open,
    };
  },
});
