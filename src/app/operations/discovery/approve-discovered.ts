import { z } from "zod";
import { defineOperation } from "../../operation.js";
import { requireDiscovery } from "./discovery-access.js";

/**
 * `gateway_approve`, `POST /discovery/approve/{name}` and `POST /discovery/reject/{name}`.
 * Approve registers a quarantined server (status `registered`) after checking its definition
 * against the configuration schema again; reject removes it from quarantine, and the cycle ignores
 * that definition until it changes. A name that is not quarantined (pending ones included) answers
 * 200 with `approved:false` or `rejected:false` and `error` (spec 1 "Discovery").
 */
export const approveDiscovered = defineOperation({
  name: "approve-discovered",
  kind: "command",
  summary: "Approve (register) or reject a quarantined discovered server: approve=true by default.",
  permissions: ["discovery:approve"],
  leaderOnly: true,
  input: z.strictObject({
    name: z.string().min(1).describe("Quarantined server name"),
    approve: z.boolean().default(true).describe("true registers it, false rejects it"),
  }),
  async run(services, input, ctx) {
    const discovery = requireDiscovery(services);
    if (input.approve) return discovery.approve(input.name, ctx.principal.id);
    return discovery.reject(input.name, ctx.principal.id);
  },
});
