import { defineOperation } from "../../operation.js";
import { groupRef } from "./get-group.js";

/**
 * A group's routing settings beside the group object, whose fields spec 1 fixes
 * (docs/rest-api.md "Groups"): the circuit breaker's threshold and current failure run, rotation
 * thresholds, and the canary (member, split, tenant pins). Read from this replica's group state:
 * the failure run is this replica's count.
 */
export const groupSettings = defineOperation({
  name: "group-settings",
  kind: "query",
  summary: "A group's circuit breaker, rotation and canary settings, with the circuit's current failure run.",
  permissions: ["group:read"],
  input: groupRef,
  async run({ groups }, input) {
    const { snapshot } = groups.require(input.group);
    const { settings, circuit } = snapshot;
    return {
      group_id: snapshot.group_id,
      strategy: settings.strategy,
      min_healthy: settings.min_healthy,
      unhealthy_threshold: settings.unhealthy_threshold,
      healthy_threshold: settings.healthy_threshold,
      circuit_breaker: {
        failure_threshold: settings.failure_threshold,
        open: circuit.open,
        failure_run: circuit.failure_run,
      },
      canary: settings.canary
        ? {
            member: settings.canary.member,
            split_pct: settings.canary.split_pct,
            pinned_tenants: { ...settings.canary.pinned_tenants },
          }
        : null,
    };
  },
});
