import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { requireDiscovery } from "./discovery-access.js";

/** `gateway_quarantine`: spec 2 gives the tool `discovery:approve` (it shows what may be approved). */
export const quarantined = defineOperation({
  name: "quarantined",
  kind: "query",
  summary: "Discovered servers held in quarantine, with the reason, keyed by name.",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    return { quarantined: requireDiscovery(services).quarantined() };
  },
});

/** `GET /discovery/quarantined`: the same listing; the route needs `discovery:read` only (spec 2 §5). */
export const listQuarantined = defineOperation({
  name: "list-quarantined",
  kind: "query",
  summary: "Discovered servers held in quarantine, with the reason, keyed by name.",
  permissions: ["discovery:read"],
  leaderOnly: true,
  input: z.strictObject({}),
  async run(services) {
    return { quarantined: requireDiscovery(services).quarantined() };
  },
});
