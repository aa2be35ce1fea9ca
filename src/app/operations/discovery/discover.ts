import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { notConfigured } from "../unavailable.js";
import { requireDiscovery } from "./discovery-access.js";

/**
 * `gateway_discover`: one cycle over every enabled configured source, now. With `discovery.enabled`
 * false it answers NotConfiguredError, which the tool edge gives as the payload `{error:
 * 'discovery is not configured', error_type, details}` (spec 2 §4 "`{error}` when discovery is not
 * configured"). Runs on the fleet manager, which holds the discovery state.
 */
export const discover = defineOperation({
  name: "discover",
  kind: "command",
  summary: "Run a discovery cycle over every configured source now.",
  permissions: ["discovery:trigger"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    const discovery = requireDiscovery(services);
    if (!discovery.enabled) throw notConfigured("discovery");
    return discovery.runCycle();
  },
});
